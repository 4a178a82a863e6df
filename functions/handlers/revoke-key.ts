import { keyManagement } from '#app-context/keys';
import { rateLimiter } from '#app-context/rate-limiter';
import { keyView } from '#contract/keys';
import { revokeKey } from '#domain/accounts/key-management';
import { httpHandler } from '#http/http-handler';
import { pathParameter } from '#http/request';

/** DELETE /api/v1/keys/{key_id}: revoke a key (a second revoke answers the same). */
export const handler = httpHandler(
  async ({ event, principal }) => keyView(await revokeKey(keyManagement(), principal.partitionId, pathParameter(event, 'key_id'))),
  { rateLimiter, access: { sessionOnly: true } },
);
