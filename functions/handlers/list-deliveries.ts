import { rateLimiter } from '#app-context/rate-limiter';
import { webhooks } from '#app-context/webhooks';
import { deliveryPageView } from '#contract/webhooks';
import { listDeliveries } from '#domain/webhooks/deliveries';
import { httpHandler } from '#http/http-handler';
import { parsePagination, pathParameter } from '#http/request';
import { spec } from './list-deliveries.spec';

/** GET /api/v1/webhooks/{webhook_id}/deliveries: the endpoint's deliveries, newest first. */
export const handler = httpHandler(
  spec,
  async ({ event, principal }) => {
    const { page, limit } = parsePagination(event);
    const webhookId = pathParameter(event, 'webhook_id');
    return deliveryPageView(await listDeliveries(webhooks(), principal.partitionId, webhookId, page, limit));
  },
  { rateLimiter },
);
