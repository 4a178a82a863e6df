/**
 * The API's route table: one Lambda handler per endpoint. The local server routes with it and
 * the CDK stack declares its functions and API Gateway methods from it.
 * `handler` is the file name under functions/handlers/ (each exports `handler`).
 */
export interface Route {
  method: 'GET' | 'POST';
  /** API Gateway resource path, with {name} for path parameters. */
  path: string;
  handler: string;
  /** 'none' for the few public routes (the API reference); every other route needs an API key. */
  auth?: 'none';
}

export const API_PREFIX = '/api/v1';

export const ROUTES: readonly Route[] = [
  { method: 'POST', path: `${API_PREFIX}/generate`, handler: 'generate' },
  { method: 'GET', path: `${API_PREFIX}/videos`, handler: 'list-videos' },
  { method: 'GET', path: `${API_PREFIX}/videos/{video_id}`, handler: 'get-video' },
  { method: 'POST', path: `${API_PREFIX}/generate-image`, handler: 'generate-image' },
  { method: 'GET', path: `${API_PREFIX}/images`, handler: 'list-images' },
  { method: 'GET', path: `${API_PREFIX}/images/{image_id}`, handler: 'get-image' },
  { method: 'POST', path: `${API_PREFIX}/upload`, handler: 'upload' },
  { method: 'POST', path: `${API_PREFIX}/uploads`, handler: 'create-upload' },
  { method: 'POST', path: `${API_PREFIX}/uploads/{upload_id}/complete`, handler: 'complete-upload' },
  { method: 'GET', path: `${API_PREFIX}/credits`, handler: 'get-credits' },
  // The API reference: public, no key.
  { method: 'GET', path: `${API_PREFIX}/openapi.json`, handler: 'get-openapi', auth: 'none' },
  { method: 'GET', path: `${API_PREFIX}/docs`, handler: 'get-docs', auth: 'none' },
  { method: 'GET', path: `${API_PREFIX}/docs/assets/{file}`, handler: 'get-docs-asset', auth: 'none' },
];

export const AUTHORIZER_HANDLER = 'authorizer';
/** Functions that are not behind a route: the scheduled sweeper and the copy worker. */
export const SWEEPER_HANDLER = 'sweeper';
export const COPY_WORKER_HANDLER = 'copy-output';

/**
 * Request bodies API Gateway passes to Lambda base64-encoded instead of as text. Without
 * multipart here, binary uploads would be mangled.
 */
export const BINARY_MEDIA_TYPES = ['multipart/form-data', 'image/*', 'application/octet-stream'] as const;
