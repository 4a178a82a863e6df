import type { KeyManagementDeps } from '#domain/accounts/key-management';
import { stores } from './stores';

/** What the key endpoints' use cases need: the key store and the clock. */
export function keyManagement(): KeyManagementDeps {
  return { apiKeys: stores().apiKeys, clock: () => new Date() };
}
