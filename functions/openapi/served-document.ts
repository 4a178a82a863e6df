import { readFileSync } from 'node:fs';
import path from 'node:path';
import { withServer, type OpenApiDocument } from './servers';

/**
 * The OpenAPI document the reference functions serve. On Lambda: docs/openapi.json as generated
 * (`npm run openapi`, checked fresh by test/process/openapi-document.test.ts), copied beside the
 * bundle (its spec's `bundle.files`), so no bundle carries the route table, its prose or
 * zod-to-openapi. Elsewhere (the local stack, tests): built from the code, so it never lags.
 */
export const SERVED_DOCUMENT_FILE = 'openapi.json';

let generated: string | undefined;

function fromFile(serverUrl: string | undefined): OpenApiDocument {
  generated ??= readFileSync(path.join(__dirname, SERVED_DOCUMENT_FILE), 'utf8');
  return withServer(JSON.parse(generated) as OpenApiDocument, serverUrl);
}

export const servedDocument = (serverUrl: string | undefined): Promise<OpenApiDocument> =>
  // VIDGEN_BUNDLE is "lambda" in the bundles (lib/constructs/api-function.ts): the import is dropped there as dead code.
  process.env.VIDGEN_BUNDLE === 'lambda'
    ? Promise.resolve(fromFile(serverUrl))
    : import('./document').then(({ buildOpenApiDocument }) => buildOpenApiDocument({ serverUrl }));
