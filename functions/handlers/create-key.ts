import { keyManagement } from '#app-context/keys';
import { rateLimiter } from '#app-context/rate-limiter';
import { createdKeyView, parseCreateKey } from '#contract/keys';
import { createKey } from '#domain/accounts/key-management';
import { stampOf } from '#http/audit-origin';
import { httpHandler } from '#http/http-handler';
import { spec } from './create-key.spec';

/** POST /api/v1/keys: a new API key; the key itself is in this answer only. */
export const handler = httpHandler(
  spec,
  async ({ event, principal, body }) => {
    const { details, apiKey } = await createKey(keyManagement(), principal.partitionId, parseCreateKey(body), stampOf(principal, event));
    return createdKeyView(details, apiKey);
  },
  { rateLimiter },
);
