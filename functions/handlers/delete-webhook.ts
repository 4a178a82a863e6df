import { rateLimiter } from '#app-context/rate-limiter';
import { webhooks } from '#app-context/webhooks';
import { deleteWebhook } from '#domain/webhooks/webhooks';
import { stampOf } from '#http/audit-origin';
import { httpHandler } from '#http/http-handler';
import { pathParameter } from '#http/request';
import { spec } from './delete-webhook.spec';

/** DELETE /api/v1/webhooks/{webhook_id}: no more events to it, including those not yet delivered. */
export const handler = httpHandler(
  spec,
  async ({ event, principal }) => {
    const webhookId = pathParameter(event, 'webhook_id');
    await deleteWebhook(webhooks(), principal.partitionId, webhookId, stampOf(principal, event));
    return { webhook_id: webhookId, deleted: true as const };
  },
  { rateLimiter },
);
