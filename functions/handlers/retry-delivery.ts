import { rateLimiter } from '#app-context/rate-limiter';
import { webhookEvents } from '#app-context/webhook-events';
import { retryDelivery } from '#domain/webhooks/deliveries';
import { httpHandler } from '#http/http-handler';
import { pathParameter } from '#http/request';
import { spec } from './retry-delivery.spec';

/** POST /api/v1/webhooks/{webhook_id}/deliveries/{event_id}/retry: sends an event to that endpoint again. */
export const handler = httpHandler(
  spec,
  async ({ event, principal }) => {
    const deps = { ...webhookEvents(), clock: () => new Date() };
    const { eventId } = await retryDelivery(deps, principal.partitionId, pathParameter(event, 'webhook_id'), pathParameter(event, 'event_id'));
    return { event_id: eventId, status: 'pending' as const };
  },
  { rateLimiter },
);
