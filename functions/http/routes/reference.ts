import * as z from 'zod';
import { RENDERER_ASSET } from '#openapi/renderer';
import type { RouteDoc } from '../route';

const assetParam = z.object({
  file: z.string().meta({ description: 'A file name the docs page refers to.', examples: [RENDERER_ASSET] }),
});

/** The API reference: public, no key, nothing to read or write (documents built in memory). */
export const REFERENCE_DOCS: RouteDoc[] = [
  {
    handler: 'get-openapi',
    doc: {
      operationId: 'getOpenApiDocument',
      summary: 'This OpenAPI document',
      description:
        'The OpenAPI 3.1 document of this API, as JSON (not wrapped in the envelope). No key needed. `servers` names the address the request was made to.',
      tag: 'Reference',
      success: {
        description: 'The OpenAPI document.',
        content: { 'application/json': { schema: { type: 'object', description: 'An OpenAPI 3.1 document.' } } },
      },
      errors: [500],
      curl: 'curl -s "{BASE}/openapi.json"',
    },
  },
  {
    handler: 'get-docs',
    doc: {
      operationId: 'getDocsPage',
      summary: 'API reference page',
      description: 'This reference as a web page (HTML). No key needed; it loads nothing from other sites.',
      tag: 'Reference',
      success: { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } },
      errors: [500],
      curl: 'curl -s "{BASE}/docs" -o api-reference.html',
    },
  },
  {
    handler: 'get-docs-asset',
    doc: {
      operationId: 'getDocsAsset',
      summary: 'Script of the reference page',
      description: 'Files the reference page loads (the renderer). No key needed. Other names: 404.',
      tag: 'Reference',
      request: { params: assetParam },
      success: {
        description: 'The file, cacheable for a year (its name changes with its content).',
        content: { 'application/javascript': { schema: { type: 'string' } } },
      },
      errors: [404, 500],
      errorNotes: { 404: { description: 'No such file.', example: 'No docs asset "nope.js".' } },
      curl: `curl -s "{BASE}/docs/assets/${RENDERER_ASSET}" -o redoc.js`,
    },
  },
];
