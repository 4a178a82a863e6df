import { rateLimiter } from '#app-context/rate-limiter';
import { webhooks } from '#app-context/webhooks';
import { webhookView } from '#contract/webhooks';
import { listWebhooks } from '#domain/webhooks/webhooks';
import { httpHandler } from '#http/http-handler';
import { spec } from './list-webhooks.spec';

/** GET /api/v1/webhooks: the caller's endpoints, oldest first (secrets are never shown again). */
export const handler = httpHandler(
  spec,
  async ({ principal }) => ({
    webhooks: (await listWebhooks(webhooks().webhooks, principal.partitionId)).map(webhookView),
  }),
  { rateLimiter },
);
