import { publicHandler } from '#http/public-handler';
import { DOCS_PAGE_CSP, docsPageHtml } from '#openapi/docs-page';
import { servedDocument } from '#openapi/served-document';
import { serverUrlOf } from '#openapi/server-url';
import { spec } from './get-docs.spec';

/** GET /api/v1/docs (public): the API reference page, rendered from the OpenAPI document. */
export const handler = publicHandler(spec, async (event) => ({
  statusCode: 200,
  headers: {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': DOCS_PAGE_CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'public, max-age=300',
  },
  body: docsPageHtml(await servedDocument(serverUrlOf(event))),
}));
