import type { ApiRoute } from '../route';
import { ACCOUNT_ROUTES } from './account';
import { BILLING_ROUTES, BILLING_WEBHOOK_ROUTES } from './billing';
import { CATALOGUE_ROUTES } from './catalogue';
import { EVENT_ROUTES } from './events';
import { IMAGE_ROUTES } from './images';
import { KEY_ROUTES } from './keys';
import { MCP_ROUTES } from './mcp';
import { PROVIDER_CALLBACK_ROUTES } from './provider-callbacks';
import { REFERENCE_ROUTES } from './reference';
import { UPLOAD_ROUTES } from './uploads';
import { VIDEO_ROUTES } from './videos';
import { WEBHOOK_ROUTES } from './webhooks';

/**
 * The API's route table: one entry per endpoint, one file per resource: who may call it, its
 * handler and its documentation. The local server routes with it; the CDK stack declares each
 * function and its API Gateway method from it (what each function may do is in
 * lib/function-needs.ts); the OpenAPI document is built from its `doc`s and the contract's
 * schemas, in this order. A new endpoint is one entry in its resource's file, its handler under
 * functions/handlers/ and its use case.
 */

export { API_PREFIX } from './prefix';

export const ROUTES: readonly ApiRoute[] = [
  ...VIDEO_ROUTES,
  ...IMAGE_ROUTES,
  ...CATALOGUE_ROUTES,
  ...UPLOAD_ROUTES,
  ...ACCOUNT_ROUTES,
  ...WEBHOOK_ROUTES,
  ...EVENT_ROUTES,
  ...KEY_ROUTES,
  ...MCP_ROUTES,
  ...PROVIDER_CALLBACK_ROUTES,
  ...BILLING_ROUTES,
  ...BILLING_WEBHOOK_ROUTES,
  ...REFERENCE_ROUTES,
];

export const AUTHORIZER_HANDLER = 'authorizer';
/** Functions that are not behind a route: the scheduled sweeper and the copy worker. */
export const SWEEPER_HANDLER = 'sweeper';
export const COPY_WORKER_HANDLER = 'copy-output';
/** Consumer of the webhook delivery queue. */
export const WEBHOOK_DELIVERY_HANDLER = 'webhook-delivery';
/** Consumer of the submission queue: creates at the provider budget's pace. */
export const SUBMISSION_CONSUMER_HANDLER = 'submission-consumer';

/**
 * Request bodies API Gateway passes to Lambda base64-encoded instead of as text. Without
 * multipart here, binary uploads would be mangled.
 */
export const BINARY_MEDIA_TYPES = ['multipart/form-data', 'image/*', 'application/octet-stream'] as const;

export type { ApiRoute, Route } from '../route';
