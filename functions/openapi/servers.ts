import type { OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';

/**
 * Where the OpenAPI document says the API is (`servers` and the curl examples' base URL), apart
 * from the document itself (./document.ts): the deployed reference functions serve the generated
 * docs/openapi.json and only set its server here, without the route table or zod-to-openapi.
 */
export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

export const LOCAL_SERVER_URL = 'http://127.0.0.1:3000/api/v1';
export const DEPLOYED_SERVER = {
  url: 'https://{api_id}.execute-api.{region}.amazonaws.com/{stage}/api/v1',
  description: 'A deployment on AWS (API Gateway default endpoint; behind a custom domain it is https://<domain>/api/v1).',
  variables: {
    api_id: { default: 'a1b2c3d4e5', description: 'The REST API id (stack output).' },
    region: { default: 'eu-west-1', description: 'The AWS region of the deployment.' },
    stage: { default: 'prod', enum: ['prod', 'dev'], description: 'The deployment stage.' },
  },
};
/** What code samples call the server URL before a concrete one is put in. */
export const BASE_PLACEHOLDER = '{BASE}';

/** Puts `text` (the placeholder, or the local server's URL of a document already made) where the base URL goes. */
function setBase(document: OpenApiDocument, text: string, serverUrl: string | undefined): OpenApiDocument {
  const url = serverUrl ?? LOCAL_SERVER_URL;
  document.servers =
    serverUrl === undefined || serverUrl === LOCAL_SERVER_URL
      ? [{ url: LOCAL_SERVER_URL, description: 'The local stack (`npm start`).' }, DEPLOYED_SERVER]
      : [{ url, description: 'The server that answered this request.' }];
  document.info.description = document.info.description?.split(text).join(url);
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item as Record<string, { 'x-codeSamples'?: { source: string }[] }>)) {
      for (const sample of operation['x-codeSamples'] ?? []) sample.source = sample.source.split(text).join(url);
    }
  }
  return document;
}

/** A freshly generated document (placeholders in place) for `serverUrl` (unset: the local stack's). */
export const withBase = (document: OpenApiDocument, serverUrl: string | undefined): OpenApiDocument => setBase(document, BASE_PLACEHOLDER, serverUrl);

/** The generated docs/openapi.json (made for the local stack) for `serverUrl` instead. */
export const withServer = (document: OpenApiDocument, serverUrl: string | undefined): OpenApiDocument =>
  serverUrl === undefined || serverUrl === LOCAL_SERVER_URL ? document : setBase(document, LOCAL_SERVER_URL, serverUrl);
