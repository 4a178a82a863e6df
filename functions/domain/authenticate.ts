import { hashApiKey, isWellFormedApiKey, keyIdFromHash, parseBearer, sameHash } from './api-key';
import { UnauthorizedError } from './errors';
import { scopeOf } from './mode';
import type { ApiKeyPrincipal } from './principal';
import type { ApiKeyStore } from './ports';

/**
 * Resolves an Authorization header to the account it acts for. Malformed keys are refused
 * before any lookup; unknown and revoked keys get the same answer, so a caller learns nothing
 * about which keys exist.
 */
export async function authenticate(
  keys: ApiKeyStore,
  authorizationHeader: string | undefined,
  defaultRateLimit: number,
): Promise<ApiKeyPrincipal> {
  const apiKey = parseBearer(authorizationHeader);
  if (!apiKey || !isWellFormedApiKey(apiKey)) throw new UnauthorizedError();

  const keyHash = hashApiKey(apiKey);
  const record = await keys.get(keyIdFromHash(keyHash));
  if (!record || record.revokedAt || !sameHash(record.keyHash, keyHash)) {
    throw new UnauthorizedError();
  }
  return {
    kind: 'apiKey',
    accountId: scopeOf(record.accountId, record.mode),
    mode: record.mode,
    keyId: record.keyId,
    rateLimit: record.rateLimit ?? defaultRateLimit,
  };
}
