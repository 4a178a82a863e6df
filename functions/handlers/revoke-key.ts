import { keyManagement } from '#app-context/keys';
import { rateLimiter } from '#app-context/rate-limiter';
import { keyView } from '#contract/keys';
import { revokeKey } from '#domain/accounts/key-management';
import { stampOf } from '#http/audit-origin';
import { httpHandler } from '#http/http-handler';
import { pathParameter } from '#http/request';
import { spec } from './revoke-key.spec';

/** DELETE /api/v1/keys/{key_id}: revoke a key (a second revoke answers the same). */
export const handler = httpHandler(
  spec,
  async ({ event, principal }) => keyView(await revokeKey(keyManagement(), principal.partitionId, pathParameter(event, 'key_id'), stampOf(principal, event))),
  { rateLimiter },
);
