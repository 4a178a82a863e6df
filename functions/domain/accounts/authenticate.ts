import { hashApiKey, isExpired, isWellFormedApiKey, keyIdFromHash, parseBearer, sameHash, scopesOf } from './api-key';
import { KeyExpiredError, UnauthorizedError } from '../shared/errors';
import { partitionOf } from '../shared/partition';
import type { ApiKeyPrincipal } from './principal';
import type { ApiKeyStore } from './ports';

/**
 * Resolves an Authorization header to the account it acts for. Malformed keys are refused
 * before any lookup; unknown and revoked keys get the same answer, so a caller learns nothing
 * about which keys exist. An expired key is told so (KeyExpiredError): only its holder can
 * present it, and knowing why it stopped working saves them a support request.
 */
export async function authenticate(
  keys: ApiKeyStore,
  authorizationHeader: string | undefined,
  defaultRateLimit: number,
  now: Date,
): Promise<ApiKeyPrincipal> {
  const apiKey = parseBearer(authorizationHeader);
  if (!apiKey || !isWellFormedApiKey(apiKey)) throw new UnauthorizedError();

  const keyHash = hashApiKey(apiKey);
  const record = await keys.get(keyIdFromHash(keyHash));
  if (!record || record.revokedAt || !sameHash(record.keyHash, keyHash)) {
    throw new UnauthorizedError();
  }
  if (isExpired(record, now)) throw new KeyExpiredError();
  return {
    kind: 'apiKey',
    partitionId: partitionOf(record.accountId, record.mode),
    mode: record.mode,
    keyId: record.keyId,
    rateLimit: record.rateLimit ?? defaultRateLimit,
    scopes: scopesOf(record),
    ...(record.monthlySpendLimit !== undefined && { monthlySpendLimit: record.monthlySpendLimit }),
    ...(record.endUserMonthlySpendLimit !== undefined && { endUserMonthlySpendLimit: record.endUserMonthlySpendLimit }),
  };
}
