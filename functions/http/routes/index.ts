import type { ApiRoute, FunctionNeeds } from '../route';
import { ACCOUNT_ROUTES } from './account';
import { IMAGE_ROUTES } from './images';
import { endsTasks, submitsTasks } from './needs';
import { PROVIDER_CALLBACK_ROUTES } from './provider-callbacks';
import { REFERENCE_ROUTES } from './reference';
import { UPLOAD_ROUTES } from './uploads';
import { VIDEO_ROUTES } from './videos';
import { WEBHOOK_ROUTES } from './webhooks';

/**
 * The API's route table: one entry per endpoint with everything it needs, one file per resource.
 * The local server routes with it; the CDK stack declares each function, its permissions and its
 * API Gateway method from it; the OpenAPI document is built from its `doc`s and the contract's
 * schemas, in this order. A new endpoint is one entry in its resource's file, its handler under
 * functions/handlers/ and its use case.
 */

export { API_PREFIX } from './prefix';

export const ROUTES: readonly ApiRoute[] = [
  ...VIDEO_ROUTES,
  ...IMAGE_ROUTES,
  ...UPLOAD_ROUTES,
  ...ACCOUNT_ROUTES,
  ...WEBHOOK_ROUTES,
  ...PROVIDER_CALLBACK_ROUTES,
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

/** What the functions that are not behind a route may do. */
export const BACKGROUND_FUNCTIONS: Readonly<Record<string, FunctionNeeds>> = {
  [AUTHORIZER_HANDLER]: {
    purpose: 'looks up the presented API key',
    table: { actions: ['GetItem'] },
  },
  [SWEEPER_HANDLER]: submitsTasks(
    endsTasks({
      purpose: 'times out, refreshes and finishes tasks still processing',
      table: { actions: ['GetItem', 'PutItem', 'UpdateItem', 'Query'], query: ['gsi2'] },
      copiesResults: true,
      queuesCopies: true,
    }),
  ),
  [COPY_WORKER_HANDLER]: endsTasks({
    purpose: 'copies provider outputs into the bucket and completes the task',
    table: { actions: ['GetItem', 'PutItem', 'UpdateItem'] },
    copiesResults: true,
  }),
  [SUBMISSION_CONSUMER_HANDLER]: submitsTasks(
    endsTasks({
      purpose: "submits queued creates at the provider budget's pace, backing off while the provider refuses for load",
      table: { actions: ['GetItem', 'PutItem', 'UpdateItem'] },
      queues: { consume: 'submissions' },
    }),
  ),
  [WEBHOOK_DELIVERY_HANDLER]: {
    purpose: 'makes one attempt of a webhook delivery and schedules the next',
    table: { actions: ['GetItem', 'UpdateItem'] },
    queues: { send: ['webhook-deliveries'], consume: 'webhook-deliveries' },
  },
};

/**
 * Request bodies API Gateway passes to Lambda base64-encoded instead of as text. Without
 * multipart here, binary uploads would be mangled.
 */
export const BINARY_MEDIA_TYPES = ['multipart/form-data', 'image/*', 'application/octet-stream'] as const;

export type { ApiRoute, Route } from '../route';
