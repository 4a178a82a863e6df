import { hashApiKey, isWellFormedApiKey, keyIdFromHash, parseBearer, sameHash } from './api-key';
import { UnauthorizedError } from './errors';
import { scopeOf, type KeyMode } from './mode';
import type { ApiKeyStore } from './ports';

export interface Principal {
  /**
   * Whose data the request acts on: the account's id for a live key, the account's test scope
   * for a test key (functions/domain/mode.ts). Every store is keyed by it, so modes never mix.
   */
  accountId: string;
  mode: KeyMode;
  keyId: string;
  rateLimit: number;
}

/**
 * Resolves an Authorization header to the account it acts for. Malformed keys are refused
 * before any lookup; unknown and revoked keys get the same answer, so a caller learns nothing
 * about which keys exist.
 */
export async function authenticate(
  keys: ApiKeyStore,
  authorizationHeader: string | undefined,
  defaultRateLimit: number,
): Promise<Principal> {
  const apiKey = parseBearer(authorizationHeader);
  if (!apiKey || !isWellFormedApiKey(apiKey)) throw new UnauthorizedError();

  const keyHash = hashApiKey(apiKey);
  const record = await keys.get(keyIdFromHash(keyHash));
  if (!record || record.revokedAt || !sameHash(record.keyHash, keyHash)) {
    throw new UnauthorizedError();
  }
  return {
    accountId: scopeOf(record.accountId, record.mode),
    mode: record.mode,
    keyId: record.keyId,
    rateLimit: record.rateLimit ?? defaultRateLimit,
  };
}
