import { rateLimiter } from '#app-context/rate-limiter';
import { stores } from '#app-context/stores';
import { webhooks } from '#app-context/webhooks';
import { createdWebhookView, parseCreateWebhook } from '#contract/webhooks';
import { createWebhook } from '#domain/webhooks/webhooks';
import { stampOf } from '#http/audit-origin';
import { httpHandler } from '#http/http-handler';
import { spec } from './create-webhook.spec';

/** POST /api/v1/webhooks: register an endpoint; its signing secret is in this answer only. */
export const handler = httpHandler(
  spec,
  async ({ event, principal, body }) =>
    createdWebhookView(
      await createWebhook({ ...webhooks(), accounts: stores().accounts }, principal.partitionId, parseCreateWebhook(body), stampOf(principal, event)),
    ),
  { rateLimiter },
);
