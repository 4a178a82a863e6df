import { type Account, type SubscriptionStatus } from './account';
import type { ApiKeyRecord } from './api-key';
import { NotFoundError, ValidationError } from '../shared/errors';
import { newAccountId, newLedgerEntryId } from '../shared/ids';
import { creatorOf, keyRevokeAudit, newKeyRecord, storeNewKey, type NewKey } from './key-management';
import { auditEntry, OPERATOR_STAMP, type AuditStamp } from '../shared/audit';
import { grantAudit } from './ledger';
import { ledgerSum, type LedgerEntry } from './ledger';
import { accountOfPartition, isTestPartition, partitionOf, type KeyMode } from '../shared/partition';
import type { AccountDirectory, AccountStore, ApiKeyStore, LedgerStore } from './ports';

/** Operator use cases behind the admin CLI. */

export interface AdminStores {
  accounts: AccountStore;
  apiKeys: ApiKeyStore;
  ledger: LedgerStore;
  /** What an operator's change is stamped with when no time is given (the domain never reads the system clock). */
  clock: () => Date;
}

const MAX_GRANT = 1_000_000_000;
const MAX_RATE_LIMIT = 1_000_000;

function requireWholeNumber(value: number, field: string, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ValidationError(`${field} must be a whole number from ${min} to ${max}.`, field);
  }
}

export interface IssuedKey {
  keyId: string;
  apiKey: string;
  mode: KeyMode;
}

/** The name of a key an operator made without naming it. */
export const OPERATOR_KEY_NAME = 'Operator key';

export async function createApiKey(
  stores: AdminStores,
  accountId: string,
  options: Partial<NewKey> = {},
  now = stores.clock().toISOString(),
  stamp: AuditStamp = OPERATOR_STAMP,
): Promise<IssuedKey> {
  if (options.rateLimit !== undefined) {
    requireWholeNumber(options.rateLimit, 'rate-limit', 1, MAX_RATE_LIMIT);
  }
  if (options.monthlySpendLimit !== undefined) {
    requireWholeNumber(options.monthlySpendLimit, 'monthly-spend-limit', 1, MAX_GRANT);
  }
  if (options.endUserMonthlySpendLimit !== undefined) {
    requireWholeNumber(options.endUserMonthlySpendLimit, 'end-user-monthly-spend-limit', 1, MAX_GRANT);
  }
  if (!(await stores.accounts.get(accountId))) throw new NotFoundError(`No account ${accountId}.`);
  const { record, apiKey } = newKeyRecord(accountId, { ...options, name: options.name ?? OPERATOR_KEY_NAME }, new Date(now), creatorOf(stamp));
  await storeNewKey(stores.apiKeys, record, stamp);
  return { keyId: record.keyId, apiKey, mode: record.mode };
}

export interface NewAccountOptions {
  credits?: number;
  paidAccess?: boolean;
  subscriptionStatus?: SubscriptionStatus;
}

export async function createAccount(
  stores: AdminStores,
  options: NewAccountOptions = {},
  now = stores.clock().toISOString(),
  stamp: AuditStamp = OPERATOR_STAMP,
): Promise<{ account: Account; key: IssuedKey }> {
  const credits = options.credits ?? 0;
  requireWholeNumber(credits, 'credits', 0, MAX_GRANT);
  const account: Account = {
    accountId: newAccountId(),
    credits,
    paidAccess: options.paidAccess ?? false,
    subscriptionStatus: options.subscriptionStatus ?? 'none',
    taskCounts: { video: 0, image: 0 },
    createdAt: now,
    updatedAt: now,
  };
  const openingGrant: LedgerEntry | undefined =
    credits > 0
      ? {
          entryId: newLedgerEntryId(),
          accountId: account.accountId,
          kind: 'grant',
          amount: credits,
          reason: 'opening balance',
          createdAt: now,
        }
      : undefined;
  const created = auditEntry(stamp, account.accountId, 'account.created', { type: 'account', id: account.accountId }, {
    credits,
    paid_access: account.paidAccess,
    subscription_status: account.subscriptionStatus,
  }, new Date(now));
  await stores.accounts.create(account, openingGrant, created);
  const key = await createApiKey(stores, account.accountId, {}, now, stamp);
  return { account, key };
}

export async function grantCredits(
  stores: AdminStores,
  accountId: string,
  amount: number,
  reason: string,
  { mode = 'live', now = stores.clock().toISOString(), stamp = OPERATOR_STAMP }: { mode?: KeyMode; now?: string; stamp?: AuditStamp } = {},
): Promise<Account> {
  requireWholeNumber(amount, 'amount', 1, MAX_GRANT);
  if (!reason.trim()) throw new ValidationError('reason must not be empty.', 'reason');
  // A test grant goes to the account's test balance (opened with its 1000 first if need be).
  const partitionId = partitionOf(accountId, mode);
  const entry: LedgerEntry = { entryId: newLedgerEntryId(), accountId: partitionId, kind: 'grant', amount, reason: reason.trim(), createdAt: now };
  await stores.accounts.grant(entry, grantAudit(stamp, 'credits.granted', entry));
  return requireAccount(stores, partitionId);
}

export async function setAccess(
  stores: AdminStores,
  accountId: string,
  changes: { paidAccess?: boolean; subscriptionStatus?: SubscriptionStatus },
  now = stores.clock().toISOString(),
  stamp: AuditStamp = OPERATOR_STAMP,
): Promise<Account> {
  if (changes.paidAccess === undefined && changes.subscriptionStatus === undefined) {
    throw new ValidationError('Nothing to change: pass --paid and/or --subscription.');
  }
  return stores.accounts.updateAccess(accountId, changes, now, accessChangeAudit(stamp, new Date(now)));
}

/** The `account.access_changed` entry of an access change: each changed field as `{ from, to }`; undefined when nothing changed. */
export function accessChangeAudit(stamp: AuditStamp, now: Date) {
  return (before: Account, after: Account) => {
    const details: Record<string, { from: boolean | string; to: boolean | string }> = {};
    if (before.paidAccess !== after.paidAccess) details.paid_access = { from: before.paidAccess, to: after.paidAccess };
    if (before.subscriptionStatus !== after.subscriptionStatus) details.subscription_status = { from: before.subscriptionStatus, to: after.subscriptionStatus };
    return Object.keys(details).length === 0 ? undefined : auditEntry(stamp, before.accountId, 'account.access_changed', { type: 'account', id: before.accountId }, details, now);
  };
}

export interface AccountSummary {
  account: Account;
  keys: ApiKeyRecord[];
  ledgerSum: number;
  ledgerEntries: number;
}

export async function describeAccount(stores: AdminStores, accountId: string): Promise<AccountSummary> {
  const [account, keys, entries] = await Promise.all([
    requireAccount(stores, accountId),
    stores.apiKeys.listForAccount(accountId),
    stores.ledger.listForAccount(accountId),
  ]);
  return { account, keys, ledgerSum: ledgerSum(entries), ledgerEntries: entries.length };
}

/** A live account as `account list` shows it, with its test balance (null until test mode was first used). */
export interface AccountListing {
  account: Account;
  testCredits: number | null;
}

/** Every account, newest first, at most `limit` of them, and how many there are. */
export async function listAccounts(directory: AccountDirectory, limit: number): Promise<{ accounts: AccountListing[]; total: number }> {
  requireWholeNumber(limit, 'limit', 1, MAX_LISTED_ACCOUNTS);
  const items = await directory.listAll();
  const testCredits = new Map(items.filter((item) => isTestPartition(item.accountId)).map((item) => [accountOfPartition(item.accountId), item.credits]));
  const live = items
    .filter((item) => !isTestPartition(item.accountId))
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.accountId.localeCompare(a.accountId));
  return {
    accounts: live.slice(0, limit).map((account) => ({ account, testCredits: testCredits.get(account.accountId) ?? null })),
    total: live.length,
  };
}

export const MAX_LISTED_ACCOUNTS = 1000;

/** An account's keys, live and test, revoked ones included, newest first. */
export async function listAccountKeys(stores: AdminStores, accountId: string): Promise<ApiKeyRecord[]> {
  await requireAccount(stores, accountId);
  const keys = await stores.apiKeys.listForAccount(accountId);
  return keys.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.keyId.localeCompare(a.keyId));
}

export async function revokeApiKey(
  stores: AdminStores,
  keyId: string,
  now = stores.clock().toISOString(),
  stamp: AuditStamp = OPERATOR_STAMP,
): Promise<ApiKeyRecord> {
  return stores.apiKeys.revoke(keyId, now, keyRevokeAudit(stamp, new Date(now)));
}

async function requireAccount(stores: AdminStores, accountId: string): Promise<Account> {
  const account = await stores.accounts.get(accountId);
  if (!account) throw new NotFoundError(`No account ${accountId}.`);
  return account;
}
