import { publicHandler } from '#http/public-handler';
import { servedDocument } from '#openapi/served-document';
import { serverUrlOf } from '#openapi/server-url';
import { spec } from './get-openapi.spec';

/**
 * GET /api/v1/openapi.json (public): the OpenAPI document itself, not wrapped in the envelope,
 * with `servers` set to the address the request came to when that can be told.
 */
export const handler = publicHandler(spec, async (event) => ({
  statusCode: 200,
  headers: {
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'public, max-age=300',
    // A public document: let API tools on other origins read it.
    'Access-Control-Allow-Origin': '*',
  },
  body: JSON.stringify(await servedDocument(serverUrlOf(event))),
}));
