import path from 'node:path';
import { RENDERER_BUNDLED_FILE, RENDERER_SOURCE } from '#openapi/renderer';
import { SERVED_DOCUMENT_FILE } from '#openapi/served-document';
import { allSampleNames, SAMPLES_SOURCE_DIR } from '#providers/simulated/sample-outputs';

/**
 * Files a function reads at run time that esbuild cannot see (they are read with fs, not
 * imported), keyed by handler name. The house construct copies each next to the function's
 * bundle (an `afterBundling` command hook), where the handler looks for it by `name`.
 */
export interface ExtraFile {
  /** Absolute path of the file to copy. */
  source: string;
  /** Its name in the asset folder (next to index.js). */
  name: string;
}

/** The generated OpenAPI document, served as it is by the reference functions (functions/openapi/served-document.ts). */
const servedDocument = (): ExtraFile[] => [{ source: path.resolve(__dirname, '..', 'docs', 'openapi.json'), name: SERVED_DOCUMENT_FILE }];

export const BUNDLE_EXTRAS: Readonly<Record<string, () => ExtraFile[]>> = {
  // Redoc's standalone browser bundle, served by GET /api/v1/docs/assets/{file} (functions/openapi/renderer.ts).
  'get-docs-asset': () => [{ source: require.resolve(RENDERER_SOURCE), name: RENDERER_BUNDLED_FILE }],
  'get-openapi': servedDocument,
  'get-docs': servedDocument,
};

const NOT_BUNDLED = path.resolve(__dirname, '../functions/mcp/not-bundled.ts');

/**
 * Packages a function's bundle replaces with a local module, keyed by handler. The MCP SDK's
 * server imports Ajv (about 140 KB minified with its formats) for a feature our server never
 * uses (it validates elicitation answers; functions/mcp/server.ts passes its own validator).
 */
export const BUNDLE_ALIASES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  mcp: { ajv: NOT_BUNDLED, 'ajv-formats': NOT_BUNDLED },
};

/**
 * The simulated provider's sample outputs (1.2 MB), for every function that calls a provider:
 * on AWS test-mode tasks run on the simulated provider, which hands these out instead of
 * rendering (functions/providers/simulated/sample-outputs.ts).
 */
export const sampleOutputFiles = (): ExtraFile[] =>
  allSampleNames().map((name) => ({ source: path.join(SAMPLES_SOURCE_DIR, name), name }));

export const extraFilesOf = (handler: string, options: { callsProvider?: boolean } = {}): ExtraFile[] => [
  ...(BUNDLE_EXTRAS[handler]?.() ?? []),
  ...(options.callsProvider ? sampleOutputFiles() : []),
];
