import type { Account } from '#domain/account';
import type { AccountSummary } from '#domain/account-admin';
import type { ApiKeyRecord } from '#domain/api-key';

/** The JSON the admin CLI prints: snake_case like the API, and never a key hash. */
export const accountView = (account: Account) => ({
  account_id: account.accountId,
  credits: account.credits,
  paid_access: account.paidAccess,
  subscription_status: account.subscriptionStatus,
  created_at: account.createdAt,
  updated_at: account.updatedAt,
});

export const keyView = (key: ApiKeyRecord) => ({
  key_id: key.keyId,
  mode: key.mode,
  status: key.revokedAt ? 'revoked' : 'active',
  rate_limit: key.rateLimit ?? null,
  created_at: key.createdAt,
  revoked_at: key.revokedAt ?? null,
});

export const summaryView = (summary: AccountSummary) => ({
  ...accountView(summary.account),
  keys: summary.keys.map(keyView),
  ledger_sum: summary.ledgerSum,
  ledger_entries: summary.ledgerEntries,
  balance_matches_ledger: summary.ledgerSum === summary.account.credits,
});
