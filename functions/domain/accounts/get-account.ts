import type { Account } from './account';
import { auditEntry, type AuditEntry, type AuditStamp } from '../shared/audit';
import { UnauthorizedError } from '../shared/errors';
import { accountOfPartition, partitionOf } from '../shared/partition';
import type { AccountStore } from './ports';
import type { Principal } from './principal';

/** The caller's account. A key whose account is gone is as good as no key. */
export async function getCallerAccount(accounts: Pick<AccountStore, 'get'>, accountId: string): Promise<Account> {
  const account = await accounts.get(accountId);
  if (!account) throw new UnauthorizedError();
  return account;
}

/** GET /account: the account behind the caller, both balances, and who is asking. */
export interface AccountOverview {
  live: Account;
  test: Account;
  /** The signed-in holder's email; null for an API key (a key speaks for no person). */
  email: string | null;
}

export async function getAccountOverview(accounts: Pick<AccountStore, 'get'>, principal: Principal): Promise<AccountOverview> {
  const accountId = accountOfPartition(principal.partitionId);
  // The test partition opens itself (with its 1000 credits) on this first read.
  const [live, test] = await Promise.all([getCallerAccount(accounts, accountId), getCallerAccount(accounts, partitionOf(accountId, 'test'))]);
  return { live, test, email: principal.kind === 'session' ? principal.email : null };
}

/**
 * PATCH /account: sets the account's output retention (the live item's, for both modes), audited
 * as `account.retention_changed` with `{ from, to }` (null: kept for good), and answers the
 * account. Setting what is already set writes nothing.
 */
export async function setOutputRetention(
  accounts: Pick<AccountStore, 'get' | 'setOutputRetention'>,
  principal: Principal,
  days: number | null,
  now: Date,
  stamp: AuditStamp,
): Promise<AccountOverview> {
  await accounts.setOutputRetention(accountOfPartition(principal.partitionId), days, now.toISOString(), retentionChangeAudit(stamp, days, now));
  return getAccountOverview(accounts, principal);
}

/** The `account.retention_changed` entry of a retention change to `days`; undefined when it is already that. */
export function retentionChangeAudit(stamp: AuditStamp, days: number | null, now: Date) {
  return (before: Account): AuditEntry | undefined => {
    const from = before.outputRetentionDays ?? null;
    if (from === days) return undefined;
    return auditEntry(stamp, before.accountId, 'account.retention_changed', { type: 'account', id: before.accountId }, { output_retention_days: { from, to: days } }, now);
  };
}
