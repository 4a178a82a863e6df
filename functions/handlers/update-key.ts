import { keyManagement } from '#app-context/keys';
import { rateLimiter } from '#app-context/rate-limiter';
import { keyView, parseUpdateKey } from '#contract/keys';
import { updateKey } from '#domain/accounts/key-management';
import { stampOf } from '#http/audit-origin';
import { httpHandler } from '#http/http-handler';
import { pathParameter } from '#http/request';
import { spec } from './update-key.spec';

/** PATCH /api/v1/keys/{key_id}: rename a key, change its scopes or its monthly spend limit. */
export const handler = httpHandler(
  spec,
  async ({ event, principal, body }) =>
    keyView(await updateKey(keyManagement(), principal.partitionId, pathParameter(event, 'key_id'), parseUpdateKey(body), stampOf(principal, event))),
  { rateLimiter },
);
