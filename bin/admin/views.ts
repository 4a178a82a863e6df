import type { Account } from '#domain/accounts/account';
import type { AccountListing, AccountSummary } from '#domain/accounts/account-admin';
import { isExpired, scopesOf, type ApiKeyRecord } from '#domain/accounts/api-key';
import { modeOfPartition } from '#domain/shared/partition';
import { submissionState } from '#domain/tasks/describe-task';
import { type CircuitView } from '#domain/providers/status';
import type { Task } from '#domain/tasks/task';

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
  created_by: key.createdBy ?? null,
  revoked_at: key.revokedAt ?? null,
});

export const summaryView = (summary: AccountSummary) => ({
  ...accountView(summary.account),
  keys: summary.keys.map(keyView),
  ledger_sum: summary.ledgerSum,
  ledger_entries: summary.ledgerEntries,
  balance_matches_ledger: summary.ledgerSum === summary.account.credits,
});

const instant = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

export const circuitView = (circuit: CircuitView) => ({
  provider: circuit.provider,
  state: circuit.status,
  consecutive_failures: circuit.failures,
  open_until: instant(circuit.openUntil),
  probe_until: instant(circuit.probeUntil),
});

/** A task as operators follow it: where its create went and how its submission stands. */
export const taskView = (task: Task, circuit: CircuitView | undefined) => ({
  task_id: task.taskId,
  account_id: task.partitionId,
  mode: modeOfPartition(task.partitionId),
  kind: task.kind,
  status: task.status,
  model: task.params.model,
  credits_used: task.creditsUsed,
  progress: task.progress,
  provider: task.provider ? { name: task.provider.name, job_id: task.provider.jobId, callbacks: task.provider.callbacks ?? false } : null,
  submission: {
    state: submissionState(task),
    sent_at: task.sentAt ?? null,
    queued_at: task.queuedAt ?? null,
    submit_attempts: task.submitAttempts ?? 0,
    last_checked_at: task.lastCheckedAt ?? null,
  },
  error: task.error ?? null,
  output_urls: task.outputUrls ?? [],
  created_at: task.createdAt,
  updated_at: task.updatedAt,
  completed_at: task.completedAt ?? null,
  circuit: circuit ? circuitView(circuit) : null,
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
  end_user_monthly_spend_limit: key.endUserMonthlySpendLimit ?? null,
  expires_at: key.expiresAt ?? null,
  last_used_at: key.lastUsedAt ?? null,
  created_at: key.createdAt,
  created_by: key.createdBy ?? null,
  revoked_at: key.revokedAt ?? null,
});
