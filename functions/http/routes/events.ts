import { EXAMPLE_VIDEO_DONE, ok } from '#contract/examples';
import { deliveryRetriedResponse, eventPageResponse, eventsQuery } from '#contract/events';
import { EVENTS_PAGE } from '#domain/webhooks/events-feed';
import { webhookIdParam } from '#contract/params';
import * as z from 'zod';
import type { RouteDoc } from '../route';
import { AUTH, json } from './operation-doc';

const EXAMPLE_EVENT_ID = 'evt_01M7ZNHRE3YZJA4Y3XQS4DQDGQ';
const EXAMPLE_CURSOR = 'MTI4LjNmOWMxYTJiNGQ1ZQ';
const EXAMPLE_WEBHOOK_ID = 'whk_01M7ZQ4XW6S3D2F1G0H9J8K7L6';

const eventParams = webhookIdParam.extend({
  event_id: z.string().meta({ description: 'The event (`evt_` + ULID): an `id` from `GET /events`, or an `event_id` of the deliveries list.', examples: [EXAMPLE_EVENT_ID] }),
});

/** The events feed (every task ending, webhooks or not) and redelivery of an event to an endpoint. */
export const EVENT_DOCS: RouteDoc[] = [
  {
    handler: 'list-events',
    doc: {
      operationId: 'listEvents',
      summary: 'List task events',
      description: `Every ending of your tasks in this key's mode (\`video.completed\`, \`video.failed\`, \`image.completed\`, \`image.failed\`), oldest first: the same objects webhooks carry, whether or not any webhook endpoint exists. Events are kept 30 days. Without \`after\` the list starts at the oldest kept event; pass each page's \`next_after\` as \`after\` to read on, and keep polling with it to follow new endings: a cursor never skips or repeats an event, even while tasks end concurrently. Cursors are opaque and belong to one account and mode. \`limit\` is 1 to ${EVENTS_PAGE.maxLimit} (default ${EVENTS_PAGE.defaultLimit}).`,
      tag: 'Webhooks',
      request: { query: eventsQuery },
      success: {
        description: 'One page of events.',
        ...json(eventPageResponse, ok({ events: [{ id: EXAMPLE_EVENT_ID, type: 'video.completed', created_at: EXAMPLE_VIDEO_DONE.completed_at, livemode: true, data: EXAMPLE_VIDEO_DONE }], has_more: false, next_after: EXAMPLE_CURSOR })),
      },
      errors: [400, 401, 429, 500],
      errorNotes: {
        400: {
          description: '`after` is not a cursor this feed gave out (or belongs to another account or mode), or `limit` is out of range.',
          example: 'after: not a cursor from this feed; pass the next_after of an earlier page, or leave it out.',
        },
      },
      curl: `curl -s "{BASE}/events?limit=50" ${AUTH}`,
    },
  },
  {
    handler: 'retry-delivery',
    doc: {
      operationId: 'retryWebhookDelivery',
      summary: 'Send an event to an endpoint again',
      description:
        'Sends the event to this endpoint again now, with the same body and `webhook-id` (newly signed), so a receiver that already handled it can tell. A delivery that ran out of retries gets one more attempt; one still retrying has its next attempt moved to now; one whose attempt is already due is left as it is. An event from `GET /events` that this endpoint never got (it did not exist yet, or does not subscribe to that type) is sent to it for the first time. The attempt shows in `GET /webhooks/{webhook_id}/deliveries`.',
      tag: 'Webhooks',
      request: { params: eventParams },
      success: { description: 'The attempt is queued.', ...json(deliveryRetriedResponse, ok({ event_id: EXAMPLE_EVENT_ID, status: 'pending' })) },
      errors: [401, 404, 429, 500],
      errorNotes: { 404: { description: 'No such endpoint, or no such event for it, in this account and mode.', example: `No webhook with id "${EXAMPLE_WEBHOOK_ID}".` } },
      curl: `curl -s -X POST "{BASE}/webhooks/$WEBHOOK_ID/deliveries/$EVENT_ID/retry" ${AUTH}`,
    },
  },
];
