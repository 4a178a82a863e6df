import type { LocalStack } from '#bin/local-stack/stack';
import { createAccount, createApiKey } from '#domain/accounts/account-admin';
import type { SubscriptionStatus } from '#domain/accounts/account';

export interface NewAccount {
  accountId: string;
  /** A live key with the rate limit asked for. */
  key: string;
  /** A test-mode key of the same account, when asked for. */
  testKey?: string;
}

/**
 * An account on the test stack with a live key, as the admin CLI makes them: `credits` (1000)
 * and, with `paid` (true), paid access and an active subscription; `rateLimit` (1000) per
 * minute on its key, high enough that a test's burst is not counted against it; a test-mode key
 * too with `testKey`.
 */
export interface NewAccountOptions {
  credits?: number;
  paid?: boolean;
  subscriptionStatus?: SubscriptionStatus;
  rateLimit?: number;
  testKey?: boolean;
}

export async function newAccount(stack: LocalStack, options: NewAccountOptions & { testKey: true }): Promise<NewAccount & { testKey: string }>;
export async function newAccount(stack: LocalStack, options?: NewAccountOptions): Promise<NewAccount>;
export async function newAccount(stack: LocalStack, options: NewAccountOptions = {}): Promise<NewAccount> {
  const paid = options.paid ?? true;
  const { account } = await createAccount(stack.context, {
    credits: options.credits ?? 1000,
    ...(paid && { paidAccess: true, subscriptionStatus: options.subscriptionStatus ?? 'active' }),
    ...(!paid && options.subscriptionStatus && { subscriptionStatus: options.subscriptionStatus }),
  });
  const rateLimit = options.rateLimit ?? 1000;
  const live = await createApiKey(stack.context, account.accountId, { rateLimit });
  const test = options.testKey ? await createApiKey(stack.context, account.accountId, { rateLimit, mode: 'test' }) : undefined;
  return { accountId: account.accountId, key: live.apiKey, ...(test && { testKey: test.apiKey }) };
}
