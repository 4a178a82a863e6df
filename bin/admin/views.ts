import type { Account } from '#domain/account';
import type { AccountListing, AccountSummary } from '#domain/account-admin';
import { isExpired, scopesOf, type ApiKeyRecord } from '#domain/api-key';

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

/** `account list`: an account with its test balance, no ledger. */
export const listingView = ({ account, testCredits }: AccountListing) => ({
  account_id: account.accountId,
  credits: account.credits,
  test_credits: testCredits,
  paid_access: account.paidAccess,
  subscription_status: account.subscriptionStatus,
  created_at: account.createdAt,
});

/** `key list`: what a holder's `GET /keys` shows of a key, plus its rate limit; never the key or its hash. */
export const keyDetailView = (key: ApiKeyRecord, now = new Date()) => ({
  key_id: key.keyId,
  name: key.name ?? null,
  mode: key.mode,
  prefix: key.prefix ?? null,
  scopes: scopesOf(key),
  status: key.revokedAt ? 'revoked' : isExpired(key, now) ? 'expired' : 'active',
  rate_limit: key.rateLimit ?? null,
  monthly_spend_limit: key.monthlySpendLimit ?? null,
  expires_at: key.expiresAt ?? null,
  last_used_at: key.lastUsedAt ?? null,
  created_at: key.createdAt,
  revoked_at: key.revokedAt ?? null,
});
