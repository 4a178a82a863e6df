import { createHash } from 'node:crypto';
import type { OpenApiDocument } from './servers';
import { RENDERER_ASSET } from './renderer';

/**
 * The HTML of GET /api/v1/docs: the OpenAPI document embedded as JSON, rendered in the browser
 * by Redoc's standalone script, which the page loads from GET /api/v1/docs/assets/{file}
 * (this API, never a CDN). The Content-Security-Policy allows nothing from other origins, so
 * the page cannot make an outside request even if the renderer tried.
 *
 * The script's address is worked out in the browser from the page's own path
 * (`…/docs` → `…/docs/assets/<file>`), so the page works under any stage or base path.
 */

const REDOC_OPTIONS = {
  expandResponses: '200',
  requiredPropsFirst: true,
  pathInMiddlePanel: true,
  jsonSampleExpandLevel: 3,
  hideDownloadButton: false,
  // The curl example (which carries the body) is the first request sample.
  hideRequestPayloadSample: true,
  menuToggle: true,
  theme: { colors: { primary: { main: '#2f5bea' } }, typography: { fontSize: '15px' } },
};

const BOOT_SCRIPT = `(function () {
  var documentJson = document.getElementById('openapi-document').textContent;
  var here = location.pathname.replace(/\\/+$/, '');
  var script = document.createElement('script');
  script.src = here + '/assets/${RENDERER_ASSET}';
  script.onload = function () {
    Redoc.init(JSON.parse(documentJson), ${JSON.stringify(REDOC_OPTIONS)}, document.getElementById('redoc'));
  };
  script.onerror = function () {
    document.getElementById('redoc').textContent = 'The reference renderer could not be loaded. The OpenAPI document is at ' + here.replace(/\\/docs$/, '/openapi.json') + '.';
  };
  document.head.appendChild(script);
})();`;

const BOOT_SCRIPT_HASH = `sha256-${createHash('sha256').update(BOOT_SCRIPT).digest('base64')}`;

/**
 * Only this origin; the inline boot script by its hash; inline styles (Redoc's styled-components
 * inject <style> elements); a blob: worker (Redoc's search index).
 */
export const DOCS_PAGE_CSP = [
  "default-src 'none'",
  `script-src 'self' '${BOOT_SCRIPT_HASH}'`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** JSON inside <script type="application/json">: nothing in it may close the element. */
const embeddable = (value: unknown) =>
  JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');

const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function docsPageHtml(openApi: OpenApiDocument): string {
  const title = escapeHtml(`${openApi.info.title} — API reference`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${title}</title>
<style>body { margin: 0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }</style>
</head>
<body>
<div id="redoc"><noscript>This page needs JavaScript. The API is described by <a href="openapi.json">openapi.json</a>.</noscript></div>
<script id="openapi-document" type="application/json">${embeddable(openApi)}</script>
<script>${BOOT_SCRIPT}</script>
</body>
</html>
`;
}
