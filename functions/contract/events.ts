import * as z from 'zod';
import { EVENTS_PAGE, type EventsPage } from '#domain/webhooks/events-feed';
import { TASK_EVENT_TYPES, type WebhookEvent } from '#domain/webhooks/webhooks';
import { successEnvelopeSchema } from './envelope';
import { timestamp } from './fields';
import { wholeNumberParam } from './pagination';
import { imageTask, imageView, videoTask, videoView } from './tasks';

/**
 * The body of a webhook event: `{ id, type, created_at, livemode, data }`, where `data` is the task view
 * exactly as GET /videos/{id} or /images/{id} returns it (`{ webhook_id }` for a test event).
 */
export function renderEvent(event: WebhookEvent): string {
  const { subject } = event;
  const data =
    subject.kind === 'test'
      ? { webhook_id: subject.webhookId }
      : subject.task.kind === 'video'
        ? videoView(subject.task)
        : imageView(subject.task);
  return JSON.stringify({ id: event.id, type: event.type, created_at: event.createdAt, livemode: event.livemode, data });
}

/** A task's ending as webhooks carry it and GET /events lists it. */
export const taskEvent = z
  .object({
    id: z.string().meta({ description: 'Event id (`evt_` + ULID): the `webhook-id` of its deliveries.', examples: ['evt_01M7ZNHRE3YZJA4Y3XQS4DQDGQ'] }),
    type: z.enum(TASK_EVENT_TYPES),
    created_at: timestamp('When the task ended.'),
    livemode: z.boolean().meta({ description: '`false` for test mode (a test key\'s tasks).' }),
    data: z.union([videoTask, imageTask]).meta({ description: 'The task as `GET /videos/{video_id}` or `GET /images/{image_id}` returned it when it ended.' }),
  })
  .meta({ id: 'TaskEvent' });

export const eventsQuery = z.object({
  after: z
    .string()
    .max(64, 'must be a cursor from next_after')
    .optional()
    .describe('after'),
  limit: wholeNumberParam('limit', 1, EVENTS_PAGE.maxLimit, EVENTS_PAGE.defaultLimit),
});

/** The query parameters as the API reference shows them (`limit` is parsed by a transform zod cannot describe). */
export const EVENTS_PARAMETERS = {
  after: {
    description: 'The `next_after` of an earlier page: the list continues after it. Leave it out to start at the oldest kept event.',
    schema: { type: 'string', maxLength: 64 },
  },
  limit: {
    description: `Events per page, 1 to ${EVENTS_PAGE.maxLimit}.`,
    schema: { type: 'integer', minimum: 1, maximum: EVENTS_PAGE.maxLimit, default: EVENTS_PAGE.defaultLimit },
  },
} as const;

export const eventPage = z
  .object({
    events: z.array(taskEvent).meta({ description: 'Oldest first.' }),
    has_more: z.boolean().meta({ description: 'Whether more events follow this page now (read again at once with `next_after`).' }),
    next_after: z.string().meta({
      description: 'The cursor to pass as `after` next: after the last event of this page, or where this page started when it is empty. Keep polling with it to follow new endings.',
    }),
  })
  .meta({ id: 'EventPage' });
export const eventPageResponse = successEnvelopeSchema('EventPageResponse', eventPage);

export const deliveryRetried = z
  .object({
    event_id: z.string().meta({ description: 'The event sent again (its `webhook-id`, unchanged).' }),
    status: z.literal('pending').meta({ description: 'An attempt is due now; its outcome shows in the deliveries list.' }),
  })
  .meta({ id: 'DeliveryRetried' });
export const deliveryRetriedResponse = successEnvelopeSchema('DeliveryRetriedResponse', deliveryRetried);

type TaskEventView = z.infer<typeof taskEvent>;

/**
 * Each stored event is the exact body its webhooks carried, read in today's shape: an event
 * stored before a view field existed (kept 30 days) gains it with the value it would have had
 * (no end user, no metadata, the refund of a failed task, no delivery). Redeliveries resend the stored bytes.
 */
export function upgradeEvent(payload: string): TaskEventView {
  const event = JSON.parse(payload) as TaskEventView;
  const data = event.data as Partial<TaskEventView['data']>;
  if (data.end_user !== undefined && data.metadata !== undefined && data.credits_refunded !== undefined && data.delivery !== undefined) return event;
  return {
    ...event,
    data: {
      ...data,
      end_user: data.end_user ?? null,
      metadata: data.metadata ?? {},
      credits_refunded: data.credits_refunded ?? (data.status === 'failed' ? (data.credits_used ?? 0) : 0),
      delivery: data.delivery ?? null,
    } as TaskEventView['data'],
  };
}

export const eventPageView = (page: EventsPage): z.infer<typeof eventPage> => ({
  events: page.events.map((event) => upgradeEvent(event.payload)),
  has_more: page.hasMore,
  next_after: page.nextAfter,
});
