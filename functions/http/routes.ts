import * as z from 'zod';
import {
  EXAMPLE_IMAGE,
  EXAMPLE_IMAGE_DONE,
  EXAMPLE_PAGINATION,
  EXAMPLE_UPLOAD,
  EXAMPLE_VIDEO,
  EXAMPLE_VIDEO_DONE,
  EXAMPLE_CREATED_WEBHOOK,
  EXAMPLE_DELIVERY,
  EXAMPLE_TRANSACTIONS,
  EXAMPLE_WEBHOOK,
  ok,
} from '../contract/examples';
import { creditsResponse } from '../contract/credits';
import { generateImageRequest } from '../contract/generate-image';
import { generateVideoRequest } from '../contract/generate-video';
import { paginationQuery } from '../contract/pagination';
import { idempotencyHeader, imageIdParam, providerCallbackParams, providerCallbackQuery, uploadForm, uploadIdParam, videoIdParam, webhookIdParam } from '../contract/params';
import { providerCallbackResponse } from '../contract/provider-callbacks';
import { imagePageResponse, imageTaskResponse, videoPageResponse, videoTaskResponse } from '../contract/tasks';
import { transactionPageResponse } from '../contract/transactions';
import { directUploadResponse, uploadedImageResponse } from '../contract/uploads';
import {
  createdWebhookResponse,
  createWebhookRequest,
  deletedWebhookResponse,
  deliveryPageResponse,
  testEventSentResponse,
  webhookListResponse,
} from '../contract/webhooks';
import { MAX_UPLOAD_BYTES } from '../domain/image-type';
import { RENDERER_ASSET } from '../openapi/renderer';
import type { ApiRoute, FunctionNeeds, TableAction } from './route';

/**
 * The API's route table: one entry per endpoint with everything it needs. The local server
 * routes with it; the CDK stack declares each function, its permissions and its API Gateway
 * method from it; the OpenAPI document is built from its `doc`s and the contract's schemas.
 * A new endpoint is one entry here, its handler under functions/handlers/ and its use case.
 */

export const API_PREFIX = '/api/v1';

/** Every API handler counts the request in its key's rate window first. */
const RATE_LIMITED: TableAction[] = ['UpdateItem'];

/**
 * What a function that can end a task needs to publish the ending: the account's webhook
 * endpoints (Query lsi1), a delivery record (GetItem, UpdateItem on the endpoint's counter,
 * PutItem) and the delivery queue.
 */
function endsTasks(needs: FunctionNeeds): FunctionNeeds {
  const actions = [...new Set<TableAction>([...needs.table.actions, 'GetItem', 'UpdateItem', 'PutItem', 'Query'])];
  const query = [...new Set([...(needs.table.query ?? []), 'lsi1' as const])];
  const send = [...new Set([...(needs.queues?.send ?? []), 'webhook-deliveries' as const])];
  return { ...needs, table: { actions, query }, queues: { ...needs.queues, send } };
}

/**
 * What a function that sends creates to the provider needs: the provider, a turn in its budget
 * (UpdateItem on the rate counters) and the submission queue, where creates wait their turn.
 */
function submitsTasks(needs: FunctionNeeds): FunctionNeeds {
  const actions = [...new Set<TableAction>([...needs.table.actions, 'UpdateItem'])];
  const send = [...new Set([...(needs.queues?.send ?? []), 'submissions' as const])];
  return { ...needs, table: { ...needs.table, actions }, provider: true, queues: { ...needs.queues, send } };
}

const json = (schema: z.ZodType, example?: unknown) => ({
  content: { 'application/json': { schema, ...(example !== undefined && { example }) } },
});

const AUTH = '\\\n  -H "Authorization: Bearer $KEY"';

const assetParam = z.object({
  file: z.string().meta({ description: 'A file name the docs page refers to.', examples: [RENDERER_ASSET] }),
});

export const ROUTES: readonly ApiRoute[] = [
  // Videos
  {
    method: 'POST',
    path: `${API_PREFIX}/generate`,
    handler: 'generate',
    needs: submitsTasks(
      endsTasks({
        purpose: 'charges, creates and submits a video task',
        table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] },
      }),
    ),
    doc: {
      operationId: 'generateVideo',
      summary: 'Start a video generation task',
      description:
        'Starts a text-to-video task, or image-to-video with `image_url` (upload a local file first with `POST /upload`). The price is charged at once (see the model table in the introduction) and refunded in full if the task fails. The answer is the task, `processing`; poll `GET /videos/{video_id}` about every 5 seconds until it is `completed` or `failed`.\n\nChecks, in this order: key (401), rate limit (429), validation (400), subscription (403 `paid_access_required`), credits (403 `insufficient_credits`), submission to the provider (502).',
      tag: 'Videos',
      request: {
        headers: idempotencyHeader,
        body: { required: true, description: 'Unknown fields are ignored.', ...json(generateVideoRequest, { prompt: 'a red fox running through snow', duration: 5 }) },
      },
      success: { description: 'The new task, `processing`.', ...json(videoTaskResponse, ok(EXAMPLE_VIDEO)) },
      errors: [400, 401, 403, 409, 413, 429, 500, 502],
      curl: `curl -s -X POST "{BASE}/generate" ${AUTH} \\\n  -H 'Content-Type: application/json' \\\n  -d '{"prompt":"a red fox running through snow","duration":5}'`,
    },
  },
  {
    method: 'GET',
    path: `${API_PREFIX}/videos`,
    handler: 'list-videos',
    needs: {
      purpose: 'reads a page of the video history',
      table: { actions: [...RATE_LIMITED, 'GetItem', 'Query'], query: ['lsi1'] },
    },
    doc: {
      operationId: 'listVideos',
      summary: 'List your video tasks',
      description: 'Your video history, newest first, a page at a time. A page past the end is an empty list.',
      tag: 'Videos',
      request: { query: paginationQuery },
      success: {
        description: 'One page of video tasks.',
        ...json(videoPageResponse, ok({ videos: [EXAMPLE_VIDEO_DONE], pagination: EXAMPLE_PAGINATION })),
      },
      errors: [400, 401, 429, 500],
      errorNotes: { 400: { description: '`page` or `limit` is not an integer in range.', example: 'limit: must be an integer from 1 to 50' } },
      curl: `curl -s "{BASE}/videos?page=1&limit=20" ${AUTH}`,
    },
  },
  {
    method: 'GET',
    path: `${API_PREFIX}/videos/{video_id}`,
    handler: 'get-video',
    needs: endsTasks({
      purpose: 'reads a video task and refreshes it from the provider',
      table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] },
      provider: true,
      queuesCopies: true,
    }),
    doc: {
      operationId: 'getVideo',
      summary: 'Get a video task',
      description:
        'The task and its status. While it is `processing` the service asks the provider for news before answering (answers within 2 s of the last check may reuse it); if that check fails, the stored state is returned, still `processing`.',
      tag: 'Videos',
      request: { params: videoIdParam },
      success: { description: 'The task.', ...json(videoTaskResponse, ok(EXAMPLE_VIDEO_DONE)) },
      errors: [401, 404, 429, 500],
      curl: `curl -s "{BASE}/videos/$VIDEO_ID" ${AUTH}`,
    },
  },
  {
    method: 'POST',
    path: `${API_PREFIX}/videos/{video_id}/cancel`,
    handler: 'cancel-video',
    needs: endsTasks({
      purpose: 'cancels a video task, refunds it and stops the upstream job',
      table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] },
      provider: true,
    }),
    doc: {
      operationId: 'cancelVideo',
      summary: 'Cancel a video task',
      description:
        'A `processing` task becomes `failed` with `error.code` `canceled` and its credits are refunded in full, once; the provider is asked to stop the job. A task that has already completed or failed (or whose result is already being stored) answers 409 `task_not_cancelable`. A cancel racing the completion has exactly one outcome: completed (the cancel gets 409) or canceled (refunded, and no result is ever published).',
      tag: 'Videos',
      request: { params: videoIdParam },
      success: { description: 'The canceled task.', ...json(videoTaskResponse, ok({ ...EXAMPLE_VIDEO, status: 'failed', progress: 12, error: { code: 'canceled', message: 'The task was canceled. Your credits were refunded.' }, completed_at: '2026-11-21T17:00:05.000Z', updated_at: '2026-11-21T17:00:05.000Z' })) },
      errors: [401, 404, 409, 429, 500],
      errorNotes: {
        409: { description: 'The task has already completed or failed.', example: `The video ${EXAMPLE_VIDEO.video_id} has already completed: only a processing task can be canceled.` },
      },
      curl: `curl -s -X POST "{BASE}/videos/$VIDEO_ID/cancel" ${AUTH}`,
    },
  },
  // Images
  {
    method: 'POST',
    path: `${API_PREFIX}/generate-image`,
    handler: 'generate-image',
    needs: submitsTasks(
      endsTasks({
        purpose: 'charges, creates and submits an image task',
        table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] },
      }),
    ),
    doc: {
      operationId: 'generateImage',
      summary: 'Start an image generation task',
      description:
        'Starts an image task with the image model; with `images` (1 to 10 URLs) it edits those images. Needs paid access and an active subscription. Charged at once, refunded in full if the task fails; poll `GET /images/{image_id}` until it is final.\n\nChecks, in this order: key (401), rate limit (429), validation (400), paid access (403 `paid_access_required`), credits (403 `insufficient_credits`), submission (502).',
      tag: 'Images',
      request: {
        headers: idempotencyHeader,
        body: {
          required: true,
          description: 'Unknown fields are ignored.',
          ...json(generateImageRequest, { prompt: 'a lighthouse at dusk', resolution: '2k', aspect_ratio: '16:9', output_format: 'webp' }),
        },
      },
      success: { description: 'The new task, `processing`.', ...json(imageTaskResponse, ok(EXAMPLE_IMAGE)) },
      errors: [400, 401, 403, 409, 413, 429, 500, 502],
      curl: `curl -s -X POST "{BASE}/generate-image" ${AUTH} \\\n  -H 'Content-Type: application/json' \\\n  -d '{"prompt":"a lighthouse at dusk","resolution":"2k","aspect_ratio":"16:9","output_format":"webp"}'`,
    },
  },
  {
    method: 'GET',
    path: `${API_PREFIX}/images`,
    handler: 'list-images',
    needs: {
      purpose: 'reads a page of the image history',
      table: { actions: [...RATE_LIMITED, 'GetItem', 'Query'], query: ['lsi1'] },
    },
    doc: {
      operationId: 'listImages',
      summary: 'List your image tasks',
      description: 'Your image history, newest first, a page at a time. A page past the end is an empty list.',
      tag: 'Images',
      request: { query: paginationQuery },
      success: {
        description: 'One page of image tasks.',
        ...json(imagePageResponse, ok({ images: [EXAMPLE_IMAGE_DONE], pagination: EXAMPLE_PAGINATION })),
      },
      errors: [400, 401, 429, 500],
      errorNotes: { 400: { description: '`page` or `limit` is not an integer in range.', example: 'limit: must be an integer from 1 to 50' } },
      curl: `curl -s "{BASE}/images?page=1&limit=20" ${AUTH}`,
    },
  },
  {
    method: 'GET',
    path: `${API_PREFIX}/images/{image_id}`,
    handler: 'get-image',
    needs: endsTasks({
      purpose: 'reads an image task and refreshes it from the provider',
      table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] },
      provider: true,
      queuesCopies: true,
    }),
    doc: {
      operationId: 'getImage',
      summary: 'Get an image task',
      description: 'The task and its status, refreshed from the provider while `processing` (same rules as videos).',
      tag: 'Images',
      request: { params: imageIdParam },
      success: { description: 'The task.', ...json(imageTaskResponse, ok(EXAMPLE_IMAGE_DONE)) },
      errors: [401, 404, 429, 500],
      errorNotes: { 404: { example: 'No image with id "img_01M7ZP0E1WQ4R5N8B2C6D7F9GH".' } },
      curl: `curl -s "{BASE}/images/$IMAGE_ID" ${AUTH}`,
    },
  },
  {
    method: 'POST',
    path: `${API_PREFIX}/images/{image_id}/cancel`,
    handler: 'cancel-image',
    needs: endsTasks({
      purpose: 'cancels a image task, refunds it and stops the upstream job',
      table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] },
      provider: true,
    }),
    doc: {
      operationId: 'cancelImage',
      summary: 'Cancel a image task',
      description:
        'A `processing` task becomes `failed` with `error.code` `canceled` and its credits are refunded in full, once; the provider is asked to stop the job. A task that has already completed or failed (or whose result is already being stored) answers 409 `task_not_cancelable`. A cancel racing the completion has exactly one outcome: completed (the cancel gets 409) or canceled (refunded, and no result is ever published).',
      tag: 'Images',
      request: { params: imageIdParam },
      success: { description: 'The canceled task.', ...json(imageTaskResponse, ok({ ...EXAMPLE_IMAGE, status: 'failed', progress: 12, error: { code: 'canceled', message: 'The task was canceled. Your credits were refunded.' }, completed_at: '2026-11-21T17:00:05.000Z', updated_at: '2026-11-21T17:00:05.000Z' })) },
      errors: [401, 404, 409, 429, 500],
      errorNotes: {
        409: { description: 'The task has already completed or failed.', example: `The image ${EXAMPLE_IMAGE.image_id} has already completed: only a processing task can be canceled.` },
      },
      curl: `curl -s -X POST "{BASE}/images/$IMAGE_ID/cancel" ${AUTH}`,
    },
  },
  // Uploads
  {
    method: 'POST',
    path: `${API_PREFIX}/upload`,
    handler: 'upload',
    needs: {
      purpose: 'stores an uploaded reference image',
      table: { actions: [...RATE_LIMITED] },
      media: { write: ['uploads/'] },
    },
    doc: {
      operationId: 'uploadImage',
      summary: 'Upload a reference image',
      description:
        "Stores an image and answers its public URL, to pass as `image_url` (image-to-video) or in `images` (image edits). The type is read from the file's bytes. On AWS a request through this endpoint carries at most about 4.5 MB (API Gateway and Lambda limits); use the direct upload (`POST /uploads`) for larger files.",
      tag: 'Uploads',
      request: {
        body: {
          required: true,
          content: {
            'multipart/form-data': {
              schema: uploadForm,
              encoding: { image: { contentType: 'image/jpeg, image/png, image/webp' } },
            },
          },
        },
      },
      success: { description: 'The stored image.', ...json(uploadedImageResponse, ok(EXAMPLE_UPLOAD)) },
      errors: [400, 401, 413, 429, 500],
      errorNotes: {
        400: {
          description: 'Not multipart/form-data, no file part named `image`, more than one file, an empty or too large file, or not a JPEG, PNG or WebP image.',
          example: "image: must be a JPEG, PNG or WebP image (the type is read from the file's content, not its name).",
        },
      },
      curl: `curl -s -X POST "{BASE}/upload" ${AUTH} \\\n  -F image=@cat.png`,
    },
  },
  {
    method: 'POST',
    path: `${API_PREFIX}/uploads`,
    handler: 'create-upload',
    needs: {
      purpose: 'presigns an upload into incoming/',
      table: { actions: [...RATE_LIMITED] },
      // A presigned PUT carries the signer's permissions: the function must hold PutObject itself.
      media: { write: ['incoming/'] },
    },
    doc: {
      operationId: 'createDirectUpload',
      summary: 'Start a direct upload (presigned form)',
      description:
        'For files of any allowed size (up to 10 MiB): answers a presigned form. POST every entry of `fields`, then the file as the last field named `file`, to `upload_url` (storage answers there, not this API), then call `POST /uploads/{upload_id}/complete`. The form expires after 15 minutes.',
      tag: 'Uploads',
      success: {
        description: 'The presigned form.',
        ...json(
          directUploadResponse,
          ok({
            upload_id: 'upl_6f1c0b6a3d2e4f5a8b9c0d1e2f3a4b5c',
            upload_url: 'https://vidgen-media.s3.eu-west-1.amazonaws.com/',
            fields: { key: 'incoming/acc_01M7ZMF8J1P87E686TGQYTVN2H/upl_6f1c0b6a3d2e4f5a8b9c0d1e2f3a4b5c', Policy: '…', 'X-Amz-Signature': '…' },
            max_bytes: MAX_UPLOAD_BYTES,
            expires_at: '2026-11-21T17:15:00.000Z',
          }),
        ),
      },
      errors: [401, 413, 429, 500],
      curl: `curl -s -X POST "{BASE}/uploads" ${AUTH}`,
    },
  },
  {
    method: 'POST',
    path: `${API_PREFIX}/uploads/{upload_id}/complete`,
    handler: 'complete-upload',
    needs: {
      purpose: 'checks an uploaded file and moves it from incoming/ to uploads/',
      // The upload's publication (UPLOAD#): get, claim (Put), answer (Update, as RATE_LIMITED), release.
      table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem', 'DeleteItem'] },
      media: { read: ['incoming/'], delete: ['incoming/'], write: ['uploads/'], listBucket: true },
    },
    doc: {
      operationId: 'completeDirectUpload',
      summary: 'Finish a direct upload',
      description:
        "Checks the uploaded file (type from its bytes, 1 byte to 10 MiB) and publishes it. A file that is not a JPEG, PNG or WebP image is deleted and answered 400. Only the account that started the upload can complete it.",
      tag: 'Uploads',
      request: { params: uploadIdParam },
      success: { description: 'The stored image.', ...json(uploadedImageResponse, ok(EXAMPLE_UPLOAD)) },
      errors: [400, 401, 404, 413, 429, 500],
      errorNotes: {
        400: {
          description: 'The uploaded file is empty, larger than 10 MiB, or not a JPEG, PNG or WebP image (it was deleted).',
          example: 'image: the file is larger than 10 MiB (10485760 bytes).',
        },
        404: {
          description: 'No file was received for this upload id (or it belongs to another account).',
          example: 'No upload "upl_6f1c0b6a3d2e4f5a8b9c0d1e2f3a4b5c" was received. POST the file to its upload_url first.',
        },
      },
      curl: `curl -s -X POST "{BASE}/uploads/$UPLOAD_ID/complete" ${AUTH}`,
    },
  },
  // Account
  {
    method: 'GET',
    path: `${API_PREFIX}/credits`,
    handler: 'get-credits',
    needs: {
      purpose: 'reads the caller account (a test key opens its test balance on first use)',
      table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] },
    },
    doc: {
      operationId: 'getCredits',
      summary: 'Get your credits and access',
      description: 'Remaining credits, the paid-access flag and the subscription status of the account that owns the key.',
      tag: 'Account',
      success: {
        description: 'The account.',
        ...json(creditsResponse, ok({ credits: 1000, paid_access: true, subscription_status: 'active' })),
      },
      errors: [401, 429, 500],
      curl: `curl -s "{BASE}/credits" ${AUTH}`,
    },
  },
  {
    method: 'GET',
    path: `${API_PREFIX}/credits/transactions`,
    handler: 'list-transactions',
    needs: {
      purpose: 'reads a page of the caller ledger (a test key opens its test balance on first use)',
      table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem', 'Query'], query: ['lsi1'] },
    },
    doc: {
      operationId: 'listCreditTransactions',
      summary: 'List your credit transactions',
      description:
        'Every change to your balance, newest first, a page at a time: grants (the opening balance, purchases), the charge of each task you started and the refund of each task that failed or was canceled. The sum of every `amount` equals `credits` in `GET /credits`. A test key lists the test balance\'s transactions. A page past the end is an empty list.',
      tag: 'Account',
      request: { query: paginationQuery },
      success: {
        description: 'One page of transactions.',
        ...json(transactionPageResponse, ok({ transactions: EXAMPLE_TRANSACTIONS, pagination: { ...EXAMPLE_PAGINATION, total: 3 } })),
      },
      errors: [400, 401, 429, 500],
      errorNotes: { 400: { description: '`page` or `limit` is not an integer in range.', example: 'limit: must be an integer from 1 to 50' } },
      curl: `curl -s "{BASE}/credits/transactions?page=1&limit=20" ${AUTH}`,
    },
  },
  // Webhooks
  {
    method: 'POST',
    path: `${API_PREFIX}/webhooks`,
    handler: 'create-webhook',
    needs: {
      purpose: 'registers a webhook endpoint (at most ten per account)',
      table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] },
    },
    doc: {
      operationId: 'createWebhook',
      summary: 'Add a webhook endpoint',
      description:
        'Registers a URL that receives an event whenever one of your tasks ends (`video.completed`, `video.failed`, `image.completed`, `image.failed`; a cancel is a `*.failed` event). Events are POSTed as JSON `{ id, type, created_at, data }`, where `data` is the task exactly as `GET /videos/{video_id}` or `GET /images/{image_id}` returns it, and signed the Standard Webhooks way (`webhook-id`, `webhook-timestamp`, `webhook-signature` headers) with the `secret` in this answer, which is never shown again. Any 2xx answer is a delivery; anything else (an error, no answer within 10 s, a redirect, which is never followed) is retried with growing delays for more than 24 hours. At most 10 endpoints per account.',
      tag: 'Webhooks',
      request: {
        body: {
          required: true,
          description: 'Unknown fields are ignored.',
          ...json(createWebhookRequest, { url: 'https://example.com/hooks/vidgen', events: ['video.completed', 'video.failed'] }),
        },
      },
      success: { description: 'The endpoint, with its signing secret.', ...json(createdWebhookResponse, ok(EXAMPLE_CREATED_WEBHOOK)) },
      errors: [400, 401, 413, 429, 500],
      errorNotes: {
        400: {
          description:
            'The url is not https, or its host is a private, loopback, link-local, multicast or cloud metadata address (or `localhost`); an event type is unknown; or the account already has 10 endpoints. A host name is checked when each event is sent: one that resolves to such an address gets the delivery error `blocked: private address`.',
          example: 'url: must be an https URL.',
        },
      },
      curl: `curl -s -X POST "{BASE}/webhooks" ${AUTH} \\\n  -H 'Content-Type: application/json' \\\n  -d '{"url":"https://example.com/hooks/vidgen"}'`,
    },
  },
  {
    method: 'GET',
    path: `${API_PREFIX}/webhooks`,
    handler: 'list-webhooks',
    needs: {
      purpose: 'lists the caller\'s webhook endpoints',
      table: { actions: [...RATE_LIMITED, 'Query'], query: ['lsi1'] },
    },
    doc: {
      operationId: 'listWebhooks',
      summary: 'List your webhook endpoints',
      description: 'Your endpoints, oldest first. Secrets are not shown again.',
      tag: 'Webhooks',
      success: { description: 'The endpoints.', ...json(webhookListResponse, ok({ webhooks: [EXAMPLE_WEBHOOK] })) },
      errors: [401, 429, 500],
      curl: `curl -s "{BASE}/webhooks" ${AUTH}`,
    },
  },
  {
    method: 'POST',
    path: `${API_PREFIX}/webhooks/{webhook_id}/test`,
    handler: 'test-webhook',
    needs: {
      purpose: 'sends a test event to one webhook endpoint',
      table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] },
      queues: { send: ['webhook-deliveries'] },
    },
    doc: {
      operationId: 'testWebhook',
      summary: 'Send a test event',
      description:
        'Sends a `webhook.test` event (`data = { webhook_id }`) to this endpoint, signed like any other event. It checks the endpoint as it is now: it is attempted once and not retried, and its outcome (`last_status_code`, `last_error`) is in the deliveries list. Test events are paced per endpoint: one at a time, and at most one every 10 seconds.',
      tag: 'Webhooks',
      request: { params: webhookIdParam },
      success: { description: 'The event sent.', ...json(testEventSentResponse, ok({ event_id: 'evt_01M7ZQ6B2C3D4E5F6G7H8J9K0M' })) },
      errors: [401, 404, 429, 500],
      errorNotes: {
        404: { example: `No webhook with id "${EXAMPLE_WEBHOOK.webhook_id}".` },
        429: {
          description: 'Over the per-key rate limit, or a test event to this endpoint is still being delivered or was sent less than 10 seconds ago. `Retry-After` says when to try again.',
          example: 'At most one test event per endpoint every 10 seconds; retry after 7 seconds.',
        },
      },
      curl: `curl -s -X POST "{BASE}/webhooks/$WEBHOOK_ID/test" ${AUTH}`,
    },
  },
  {
    method: 'GET',
    path: `${API_PREFIX}/webhooks/{webhook_id}/deliveries`,
    handler: 'list-deliveries',
    needs: {
      purpose: 'reads a page of an endpoint\'s deliveries',
      table: { actions: [...RATE_LIMITED, 'GetItem', 'Query'], query: ['lsi1'] },
    },
    doc: {
      operationId: 'listWebhookDeliveries',
      summary: 'List an endpoint\'s deliveries',
      description: 'What was sent to this endpoint and how it answered, newest first, a page at a time. Kept for 30 days.',
      tag: 'Webhooks',
      request: { params: webhookIdParam, query: paginationQuery },
      success: {
        description: 'One page of deliveries.',
        ...json(deliveryPageResponse, ok({ deliveries: [EXAMPLE_DELIVERY], pagination: EXAMPLE_PAGINATION })),
      },
      errors: [400, 401, 404, 429, 500],
      errorNotes: {
        400: { description: '`page` or `limit` is not an integer in range.', example: 'limit: must be an integer from 1 to 50' },
        404: { example: `No webhook with id "${EXAMPLE_WEBHOOK.webhook_id}".` },
      },
      curl: `curl -s "{BASE}/webhooks/$WEBHOOK_ID/deliveries?page=1&limit=20" ${AUTH}`,
    },
  },
  {
    method: 'DELETE',
    path: `${API_PREFIX}/webhooks/{webhook_id}`,
    handler: 'delete-webhook',
    needs: {
      purpose: 'deletes a webhook endpoint',
      table: { actions: [...RATE_LIMITED, 'DeleteItem'] },
    },
    doc: {
      operationId: 'deleteWebhook',
      summary: 'Delete a webhook endpoint',
      description: 'The endpoint gets nothing more, not even events still waiting for a retry.',
      tag: 'Webhooks',
      request: { params: webhookIdParam },
      success: { description: 'Deleted.', ...json(deletedWebhookResponse, ok({ webhook_id: EXAMPLE_WEBHOOK.webhook_id, deleted: true })) },
      errors: [401, 404, 429, 500],
      errorNotes: { 404: { example: `No webhook with id "${EXAMPLE_WEBHOOK.webhook_id}".` } },
      curl: `curl -s -X DELETE "{BASE}/webhooks/$WEBHOOK_ID" ${AUTH}`,
    },
  },
  // Called by the generation provider, not by API clients: its signature is the credential.
  {
    method: 'POST',
    path: `${API_PREFIX}/provider-callbacks/{provider}/{account_id}/{task_id}`,
    handler: 'provider-callback',
    auth: 'none',
    needs: endsTasks({
      purpose: "applies a provider's signed callback to its task",
      // DeleteItem: a message's receipt is given up when it could not be handled (so its retry is taken).
      table: { actions: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'] },
      provider: true,
      queuesCopies: true,
    }),
    doc: {
      operationId: 'receiveProviderCallback',
      summary: 'Provider callback (internal)',
      description:
        "Where the generation provider reports a job's progress and end; you never call it. No API key: the URL carries a token that binds it to its task, and the request must carry the provider's Standard Webhooks signature (`webhook-id`, `webhook-timestamp`, `webhook-signature`) with a timestamp within 5 minutes. A token that is not the task's, a forged or a stale callback: 401; an unreadable one: 400; an unknown task: 404. Each changes nothing. A message already received (same `webhook-id`) is answered 200 `duplicate` and changes nothing.",
      tag: 'Internal',
      request: { params: providerCallbackParams, query: providerCallbackQuery },
      success: {
        description: 'Received (the provider does not retry).',
        ...json(providerCallbackResponse, ok({ received: true, result: 'applied' })),
      },
      errors: [400, 401, 404, 500],
      errorNotes: {
        401: { description: "The URL's token is not the task's, or the signature is missing, does not verify, or is older than 5 minutes.", example: 'The callback signature is missing or does not verify.' },
        404: { description: 'No such task, or no such provider.', example: 'No task "vid_01M7ZNHRE3YZJA4Y3XQS4DQDGQ" awaits a callback here.' },
      },
      curl: `curl -s -X POST "{BASE}/provider-callbacks/simulated/$ACCOUNT_ID/$VIDEO_ID?token=<token>" -H "webhook-id: msg_1" -H "webhook-timestamp: $(date +%s)" -H "webhook-signature: v1,<signature>" -H "Content-Type: application/json" -d '{"id":"sim_01M7ZNHRE3YZJA4Y3XQS4DQDGQ","status":"processing"}'`,
    },
  },
  // The API reference: public, no key, nothing to read or write (documents built in memory).
  {
    method: 'GET',
    path: `${API_PREFIX}/openapi.json`,
    handler: 'get-openapi',
    auth: 'none',
    needs: { purpose: 'serves the OpenAPI document', table: { actions: [] } },
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
    method: 'GET',
    path: `${API_PREFIX}/docs`,
    handler: 'get-docs',
    auth: 'none',
    needs: { purpose: 'serves the API reference page', table: { actions: [] } },
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
    method: 'GET',
    path: `${API_PREFIX}/docs/assets/{file}`,
    handler: 'get-docs-asset',
    auth: 'none',
    needs: { purpose: 'serves the reference page script (copied next to its bundle)', table: { actions: [] } },
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

export type { ApiRoute, Route } from './route';
