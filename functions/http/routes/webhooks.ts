import { EXAMPLE_CREATED_WEBHOOK, EXAMPLE_DELIVERY, EXAMPLE_PAGINATION, EXAMPLE_WEBHOOK, ok } from '#contract/examples';
import { paginationQuery } from '#contract/pagination';
import { webhookIdParam } from '#contract/params';
import {
  createdWebhookResponse,
  createWebhookRequest,
  deletedWebhookResponse,
  deliveryPageResponse,
  testEventSentResponse,
  webhookListResponse,
} from '#contract/webhooks';
import type { RouteDoc } from '../route';
import { AUTH, json, PAGE_ERROR_NOTE } from './operation-doc';

/** Webhooks: the account's endpoints, a test event and the deliveries. */
export const WEBHOOK_DOCS: RouteDoc[] = [
  {
    handler: 'create-webhook',
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
    handler: 'list-webhooks',
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
    handler: 'test-webhook',
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
    handler: 'list-deliveries',
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
        400: PAGE_ERROR_NOTE,
        404: { example: `No webhook with id "${EXAMPLE_WEBHOOK.webhook_id}".` },
      },
      curl: `curl -s "{BASE}/webhooks/$WEBHOOK_ID/deliveries?page=1&limit=20" ${AUTH}`,
    },
  },
  {
    handler: 'delete-webhook',
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
];
