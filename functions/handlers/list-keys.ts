import { keyManagement } from '#app-context/keys';
import { rateLimiter } from '#app-context/rate-limiter';
import { keyView } from '#contract/keys';
import { listKeys } from '#domain/accounts/key-management';
import { httpHandler } from '#http/http-handler';
import { spec } from './list-keys.spec';

/** GET /api/v1/keys: the account's API keys, newest first, revoked ones included. */
export const handler = httpHandler(
  spec,
  async ({ principal }) => ({ keys: (await listKeys(keyManagement(), principal.partitionId)).map(keyView) }),
  { rateLimiter },
);
