import { RENDERER_BUNDLED_FILE, RENDERER_SOURCE } from '../functions/openapi/renderer';

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

export const BUNDLE_EXTRAS: Readonly<Record<string, () => ExtraFile[]>> = {
  // Redoc's standalone browser bundle, served by GET /api/v1/docs/assets/{file} (functions/openapi/renderer.ts).
  'get-docs-asset': () => [{ source: require.resolve(RENDERER_SOURCE), name: RENDERER_BUNDLED_FILE }],
};

export const extraFilesOf = (handler: string): ExtraFile[] => BUNDLE_EXTRAS[handler]?.() ?? [];
