import * as z from 'zod';
import type { Delivery } from '#domain/webhooks/deliveries';
import { MAX_WEBHOOK_DESCRIPTION, TASK_EVENT_TYPES, type WebhookEndpoint } from '#domain/webhooks/webhooks';
import type { Page } from '#domain/shared/page';
import { successEnvelopeSchema } from './envelope';
import { jsonObject, oneOf, timestamp } from './fields';
import { pagination, paginationView } from './pagination';

/** Webhook endpoints and their deliveries (Standard Webhooks). */

export const createWebhookBody = jsonObject({
  url: z
    .string({ error: 'must be an absolute https URL' })
    .max(2048, 'must be at most 2048 characters')
    .refine((value) => URL.canParse(value), 'must be an absolute https URL'),
  events: z
    .array(oneOf(TASK_EVENT_TYPES), { error: `must be an array of event types (${TASK_EVENT_TYPES.join(', ')})` })
    .min(1, 'must name at least one event type (leave it out for all of them)')
    .optional(),
  description: z
    .string({ error: 'must be a string' })
    .max(MAX_WEBHOOK_DESCRIPTION, `must be at most ${MAX_WEBHOOK_DESCRIPTION} characters`)
    .optional(),
});
export const createWebhookRequest = createWebhookBody.meta({ id: 'CreateWebhookRequest' });

export function parseCreateWebhook(body: unknown) {
  const parsed = createWebhookBody.parse(body);
  return {
    url: parsed.url,
    ...(parsed.events && { events: parsed.events }),
    ...(parsed.description !== undefined && { description: parsed.description }),
  };
}

const webhookFields = {
  webhook_id: z.string().meta({ description: 'Endpoint id (`whk_` + ULID).', examples: ['whk_01M7ZQ4XW6S3D2F1G0H9J8K7L6'] }),
  url: z.string().meta({ description: 'Where events are POSTed.' }),
  events: z.array(z.enum(TASK_EVENT_TYPES)).meta({ description: 'The event types sent to this endpoint (`webhook.test` is always sent when asked for).' }),
  description: z.string().nullable().meta({ description: 'Your note about this endpoint.' }),
  created_at: timestamp('When the endpoint was added.'),
};

export const webhook = z.object(webhookFields).meta({ id: 'Webhook' });
export const createdWebhook = z
  .object({
    ...webhookFields,
    secret: z.string().meta({
      description:
        'The signing secret (`whsec_` + base64). Shown only in this answer: keep it to verify the `webhook-signature` of every event.',
    }),
  })
  .meta({ id: 'CreatedWebhook' });
export const webhookList = z.object({ webhooks: z.array(webhook).meta({ description: 'Oldest first.' }) }).meta({ id: 'WebhookList' });
export const deletedWebhook = z.object({ webhook_id: z.string(), deleted: z.literal(true) }).meta({ id: 'DeletedWebhook' });
export const testEventSent = z.object({ event_id: z.string().meta({ description: 'The `webhook.test` event sent (its `webhook-id`).' }) }).meta({ id: 'TestEventSent' });

export const delivery = z
  .object({
    event_id: z.string().meta({ description: 'The event (`webhook-id` header), the same on every attempt.' }),
    type: z.enum([...TASK_EVENT_TYPES, 'webhook.test']),
    status: z.enum(['pending', 'delivered', 'failed']).meta({
      description: '`pending` while attempts remain, `delivered` after a 2xx answer, `failed` when the retries ran out.',
    }),
    attempts: z.number().int().nonnegative(),
    last_status_code: z.number().int().nullable().meta({ description: 'The HTTP status of the last attempt; null when none answered.' }),
    last_error: z
      .string()
      .nullable()
      .meta({
        description:
          'Why the last attempt was not a delivery, in a few words: `HTTP 500`, `redirect not followed (HTTP 302)`, `connection refused`, `connection reset`, `timeout after 10 s`, `host name not found`, `TLS certificate not accepted`, `blocked: private address` (the host resolved to an address we never send to)... Null before the first attempt and after a 2xx.',
        examples: ['connection refused'],
      }),
    last_attempt_at: z.iso.datetime().nullable(),
    next_attempt_at: z.iso.datetime().nullable().meta({ description: 'When the next attempt is due (pending only).' }),
  })
  .meta({ id: 'Delivery' });
export const deliveryPage = z.object({ deliveries: z.array(delivery).meta({ description: 'Newest first.' }), pagination }).meta({ id: 'DeliveryPage' });

export const createdWebhookResponse = successEnvelopeSchema('CreatedWebhookResponse', createdWebhook);
export const webhookListResponse = successEnvelopeSchema('WebhookListResponse', webhookList);
export const deletedWebhookResponse = successEnvelopeSchema('DeletedWebhookResponse', deletedWebhook);
export const testEventSentResponse = successEnvelopeSchema('TestEventSentResponse', testEventSent);
export const deliveryPageResponse = successEnvelopeSchema('DeliveryPageResponse', deliveryPage);

export const webhookView = (endpoint: WebhookEndpoint): z.infer<typeof webhook> => ({
  webhook_id: endpoint.webhookId,
  url: endpoint.url,
  events: endpoint.events,
  description: endpoint.description,
  created_at: endpoint.createdAt,
});

export const createdWebhookView = (endpoint: WebhookEndpoint): z.infer<typeof createdWebhook> => ({
  ...webhookView(endpoint),
  secret: endpoint.secret,
});

export const deliveryView = (item: Delivery): z.infer<typeof delivery> => ({
  event_id: item.eventId,
  type: item.type,
  status: item.status,
  attempts: item.attempts,
  last_status_code: item.lastStatusCode,
  last_error: item.lastError,
  last_attempt_at: item.lastAttemptAt,
  next_attempt_at: item.status === 'pending' ? item.nextAttemptAt : null,
});

export const deliveryPageView = (page: Page<Delivery>): z.infer<typeof deliveryPage> => ({
  deliveries: page.items.map(deliveryView),
  pagination: paginationView(page),
});
