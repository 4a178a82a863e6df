import { rateLimiter } from '#app-context/rate-limiter';
import { webhooks } from '#app-context/webhooks';
import { sendTestEvent } from '#domain/webhooks/deliveries';
import { httpHandler } from '#http/http-handler';
import { pathParameter } from '#http/request';
import { spec } from './test-webhook.spec';

/** POST /api/v1/webhooks/{webhook_id}/test: sends a `webhook.test` event to that endpoint. */
export const handler = httpHandler(
  spec,
  async ({ event, principal }) => {
    const { eventId } = await sendTestEvent(webhooks(), principal.partitionId, pathParameter(event, 'webhook_id'));
    return { event_id: eventId };
  },
  { rateLimiter },
);
