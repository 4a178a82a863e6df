import {
  generateApiKey,
  hashApiKey,
  keyIdFromHash,
  keyPrefixOf,
  KEY_SCOPES,
  type ApiKeyRecord,
  type KeyScope,
} from './api-key';
import { NotFoundError, ValidationError } from '../shared/errors';
import { spendMonthOf } from './spending-key';
import { accountOfPartition, type KeyMode } from '../shared/partition';
import type { ApiKeyChanges, ApiKeyStore } from './ports';

/**
 * An account holder's own API keys (GET/POST /keys, PATCH/DELETE /keys/{key_id}): what the
 * console's API keys area does. Keys belong to the account, whatever mode the session is in;
 * another account's key is answered as unknown.
 */

/** Unrevoked keys an account may have at once. */
export const MAX_ACTIVE_KEYS = 50;
export const MAX_KEY_NAME_LENGTH = 64;
/** How far ahead a key's expiry may be set. */
export const MAX_KEY_LIFETIME_DAYS = 365;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface KeyManagementDeps {
  apiKeys: ApiKeyStore;
  clock: () => Date;
}

/** A key as its holder sees it: the record and what it has spent this month. */
export interface KeyDetails {
  record: ApiKeyRecord;
  spentThisMonth: number;
}

export interface NewKey {
  name: string;
  mode?: KeyMode;
  scopes?: KeyScope[];
  expiresAt?: string;
  monthlySpendLimit?: number;
  endUserMonthlySpendLimit?: number;
  /** Operators only (the admin CLI): a per-key requests-per-minute limit. */
  rateLimit?: number;
}

/** The record of a freshly generated key (the key itself is returned once, never stored). */
export function newKeyRecord(accountId: string, input: NewKey, now: Date): { record: ApiKeyRecord; apiKey: string } {
  const mode = input.mode ?? 'live';
  const apiKey = generateApiKey(mode);
  const keyHash = hashApiKey(apiKey);
  const record: ApiKeyRecord = {
    keyId: keyIdFromHash(keyHash),
    keyHash,
    accountId,
    mode,
    name: input.name,
    scopes: input.scopes ?? [...KEY_SCOPES],
    prefix: keyPrefixOf(apiKey),
    createdAt: now.toISOString(),
    ...(input.expiresAt !== undefined && { expiresAt: checkExpiry(input.expiresAt, now) }),
    ...(input.monthlySpendLimit !== undefined && { monthlySpendLimit: input.monthlySpendLimit }),
    ...(input.endUserMonthlySpendLimit !== undefined && { endUserMonthlySpendLimit: input.endUserMonthlySpendLimit }),
    ...(input.rateLimit !== undefined && { rateLimit: input.rateLimit }),
  };
  return { record, apiKey };
}

/** A future instant at most MAX_KEY_LIFETIME_DAYS ahead, as an ISO string. */
function checkExpiry(expiresAt: string, now: Date): string {
  const at = Date.parse(expiresAt);
  if (Number.isNaN(at)) throw new ValidationError('expires_at: must be an ISO 8601 instant, e.g. 2027-01-31T00:00:00Z.', 'expires_at');
  if (at <= now.getTime()) throw new ValidationError('expires_at: must be in the future.', 'expires_at');
  if (at > now.getTime() + MAX_KEY_LIFETIME_DAYS * DAY_MS) {
    throw new ValidationError(`expires_at: must be at most ${MAX_KEY_LIFETIME_DAYS} days ahead.`, 'expires_at');
  }
  return new Date(at).toISOString();
}

/** Stores a new key unless the account has MAX_ACTIVE_KEYS unrevoked ones already. */
export async function storeNewKey(apiKeys: ApiKeyStore, record: ApiKeyRecord): Promise<void> {
  if (!(await apiKeys.create(record, MAX_ACTIVE_KEYS))) {
    throw new ValidationError(
      `An account can have at most ${MAX_ACTIVE_KEYS} API keys that are not revoked; revoke one first (DELETE /keys/{key_id}).`,
    );
  }
}

export async function createKey(
  deps: KeyManagementDeps,
  partitionId: string,
  input: NewKey,
): Promise<{ details: KeyDetails; apiKey: string }> {
  const { record, apiKey } = newKeyRecord(accountOfPartition(partitionId), input, deps.clock());
  await storeNewKey(deps.apiKeys, record);
  return { details: { record, spentThisMonth: 0 }, apiKey };
}

/** Newest first, revoked keys included. */
export async function listKeys(deps: KeyManagementDeps, partitionId: string): Promise<KeyDetails[]> {
  const records = await deps.apiKeys.listForAccount(accountOfPartition(partitionId));
  records.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.keyId.localeCompare(a.keyId));
  const spent = await deps.apiKeys.spentInMonth(
    records.map((record) => record.keyId),
    spendMonthOf(deps.clock()),
  );
  return records.map((record) => ({ record, spentThisMonth: spent.get(record.keyId) ?? 0 }));
}

export async function updateKey(deps: KeyManagementDeps, partitionId: string, keyId: string, changes: ApiKeyChanges): Promise<KeyDetails> {
  const record = await deps.apiKeys.update(accountOfPartition(partitionId), keyId, changes);
  if (!record) throw unknownKey(keyId);
  return withSpend(deps, record);
}

/** Revoking twice answers the same (the first revocation's time). */
export async function revokeKey(deps: KeyManagementDeps, partitionId: string, keyId: string): Promise<KeyDetails> {
  const record = await deps.apiKeys.revoke(keyId, deps.clock().toISOString(), accountOfPartition(partitionId)).catch((error: unknown) => {
    throw error instanceof NotFoundError ? unknownKey(keyId) : error;
  });
  return withSpend(deps, record);
}

async function withSpend(deps: KeyManagementDeps, record: ApiKeyRecord): Promise<KeyDetails> {
  const spent = await deps.apiKeys.spentInMonth([record.keyId], spendMonthOf(deps.clock()));
  return { record, spentThisMonth: spent.get(record.keyId) ?? 0 };
}

const unknownKey = (keyId: string) => new NotFoundError(`No API key with id "${keyId}".`);
