import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import redocPackage from 'redoc/package.json';

/**
 * The docs page's renderer: Redoc's standalone browser bundle (one self-contained script,
 * about 1.1 MB, 330 kB gzipped), served by GET /api/v1/docs/assets/{file} so that the page
 * loads nothing from other sites.
 *
 * Where the file comes from:
 * - local stack and tests: `node_modules/redoc/bundles/redoc.standalone.js`;
 * - the deployed Lambda (no node_modules there): a copy named RENDERER_BUNDLED_FILE next to the
 *   function's bundle, put there by the function's `afterBundling` command hook (lib/).
 *
 * One change is made to the file as served: Redoc's sidebar footer shows a "Redocly" logo that it
 * loads from Redocly's CDN; that address is replaced by an empty inline SVG, so the page makes
 * no outside request (the page's Content-Security-Policy would block it anyway).
 */
export const RENDERER_VERSION: string = redocPackage.version;
/** Module specifier of the file, for `require.resolve` (the CDK hook uses it too). */
export const RENDERER_SOURCE = 'redoc/bundles/redoc.standalone.js';
/** The file's name next to a Lambda bundle. */
export const RENDERER_BUNDLED_FILE = 'redoc.standalone.js';
/** Its public name: versioned, so that it can be cached for a year. */
export const RENDERER_ASSET = `redoc-${RENDERER_VERSION}.standalone.js`;

const CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const EMPTY_SVG = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E";

let cached: string | undefined;

/** The renderer script as served (read once per process). */
export function rendererScript(): string {
  cached ??= readFileSync(locateRenderer(), 'utf8').split(CDN_LOGO).join(EMPTY_SVG);
  return cached;
}

function locateRenderer(): string {
  const bundled = path.join(__dirname, RENDERER_BUNDLED_FILE);
  if (existsSync(bundled)) return bundled;
  try {
    return require.resolve(RENDERER_SOURCE);
  } catch {
    throw new Error(
      `The docs renderer is missing: neither ${bundled} nor ${RENDERER_SOURCE} exists. The docs function's bundle must include ${RENDERER_BUNDLED_FILE}.`,
    );
  }
}
