import {
  generateApiKey,
  hashApiKey,
  keyIdFromHash,
  keyPrefixOf,
  KEY_SCOPES,
  scopesOf,
  UNNAMED_KEY,
  type ApiKeyRecord,
  type KeyScope,
} from './api-key';
import { NotFoundError, ValidationError } from '../shared/errors';
import { spendMonthOf } from './spending-key';
import { accountOfPartition, type KeyMode } from '../shared/partition';
import type { ApiKeyChanges, ApiKeyStore, KeyChangeAudit } from './ports';
import { auditEntry, type AuditDetails, type AuditStamp, type AuditValue } from '../shared/audit';

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
export function newKeyRecord(accountId: string, input: NewKey, now: Date, createdBy: string): { record: ApiKeyRecord; apiKey: string } {
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
    createdBy,
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

/** Who made a key, as the key records it: the holder's id, or `operator`. */
export const creatorOf = (stamp: AuditStamp): string => stamp.actor.id;

/** What a key's entries say of it: never the key, its hash or its prefix. */
function keyFacts(record: ApiKeyRecord): AuditDetails {
  return {
    name: record.name ?? UNNAMED_KEY,
    mode: record.mode,
    scopes: scopesOf(record),
    expires_at: record.expiresAt ?? null,
    monthly_spend_limit: record.monthlySpendLimit ?? null,
    end_user_monthly_spend_limit: record.endUserMonthlySpendLimit ?? null,
  };
}

/** Stores a new key, with its `key.created` entry, unless the account has MAX_ACTIVE_KEYS unrevoked ones already. */
export async function storeNewKey(apiKeys: ApiKeyStore, record: ApiKeyRecord, stamp: AuditStamp): Promise<void> {
  const entry = auditEntry(stamp, record.accountId, 'key.created', { type: 'key', id: record.keyId }, keyFacts(record), new Date(record.createdAt));
  if (!(await apiKeys.create(record, MAX_ACTIVE_KEYS, entry))) {
    throw new ValidationError(
      `An account can have at most ${MAX_ACTIVE_KEYS} API keys that are not revoked; revoke one first (DELETE /keys/{key_id}).`,
    );
  }
}

export async function createKey(
  deps: KeyManagementDeps,
  partitionId: string,
  input: NewKey,
  stamp: AuditStamp,
): Promise<{ details: KeyDetails; apiKey: string }> {
  const { record, apiKey } = newKeyRecord(accountOfPartition(partitionId), input, deps.clock(), creatorOf(stamp));
  await storeNewKey(deps.apiKeys, record, stamp);
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

/** The record a PATCH makes of `record` (the stores apply it to the record as they read it). */
export function applyKeyChanges(record: ApiKeyRecord, changes: ApiKeyChanges): ApiKeyRecord {
  const next: ApiKeyRecord = { ...record };
  if (changes.name !== undefined) next.name = changes.name;
  if (changes.scopes !== undefined) next.scopes = [...changes.scopes];
  if (changes.monthlySpendLimit === null) delete next.monthlySpendLimit;
  else if (changes.monthlySpendLimit !== undefined) next.monthlySpendLimit = changes.monthlySpendLimit;
  if (changes.endUserMonthlySpendLimit === null) delete next.endUserMonthlySpendLimit;
  else if (changes.endUserMonthlySpendLimit !== undefined) next.endUserMonthlySpendLimit = changes.endUserMonthlySpendLimit;
  return next;
}

/** The `key.updated` entry of a change: each changed field as `{ from, to }`; undefined when nothing changed. */
export function keyChangeAudit(stamp: AuditStamp, now: Date): KeyChangeAudit {
  return (before, after) => {
    const [was, is] = [keyFacts(before), keyFacts(after)];
    const changed: Record<string, { from: AuditValue; to: AuditValue }> = {};
    for (const field of ['name', 'scopes', 'monthly_spend_limit', 'end_user_monthly_spend_limit'] as const) {
      if (JSON.stringify(was[field]) !== JSON.stringify(is[field])) changed[field] = { from: was[field] as AuditValue, to: is[field] as AuditValue };
    }
    if (Object.keys(changed).length === 0) return undefined;
    return auditEntry(stamp, before.accountId, 'key.updated', { type: 'key', id: before.keyId }, { ...changed, mode: before.mode }, now);
  };
}

/** The `key.revoked` entry of a key. */
export const keyRevokeAudit =
  (stamp: AuditStamp, now: Date) =>
  (record: ApiKeyRecord) =>
    auditEntry(stamp, record.accountId, 'key.revoked', { type: 'key', id: record.keyId }, { name: record.name ?? UNNAMED_KEY, mode: record.mode }, now);

export async function updateKey(deps: KeyManagementDeps, partitionId: string, keyId: string, changes: ApiKeyChanges, stamp: AuditStamp): Promise<KeyDetails> {
  const record = await deps.apiKeys.update(accountOfPartition(partitionId), keyId, changes, keyChangeAudit(stamp, deps.clock()));
  if (!record) throw unknownKey(keyId);
  return withSpend(deps, record);
}

/** Revoking twice answers the same (the first revocation's time) and is audited once. */
export async function revokeKey(deps: KeyManagementDeps, partitionId: string, keyId: string, stamp: AuditStamp): Promise<KeyDetails> {
  const now = deps.clock();
  const record = await deps.apiKeys.revoke(keyId, now.toISOString(), keyRevokeAudit(stamp, now), accountOfPartition(partitionId)).catch((error: unknown) => {
    throw error instanceof NotFoundError ? unknownKey(keyId) : error;
  });
  return withSpend(deps, record);
}

async function withSpend(deps: KeyManagementDeps, record: ApiKeyRecord): Promise<KeyDetails> {
  const spent = await deps.apiKeys.spentInMonth([record.keyId], spendMonthOf(deps.clock()));
  return { record, spentThisMonth: spent.get(record.keyId) ?? 0 };
}

const unknownKey = (keyId: string) => new NotFoundError(`No API key with id "${keyId}".`);
