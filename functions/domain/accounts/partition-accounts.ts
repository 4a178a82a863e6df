import { AccountExistsError, type Account } from './account';
import { newLedgerEntryId } from '../shared/ids';
import type { LedgerEntry } from './ledger';
import { accountOfPartition, isTestPartition } from '../shared/partition';
import type { AccountStore } from './ports';

/** What a test balance holds the first time it is used. */
export const TEST_OPENING_CREDITS = 1000;
const OPENING_REASON = 'test mode opening balance';

/**
 * The account store as the API sees it in both modes. A live scope is the account itself. A
 * test partition is the account's own test balance item (same shape, its own credits, history
 * counts and ledger), created with TEST_OPENING_CREDITS and its opening grant on first use. Its
 * access is the live account's, so a test key meets the refusals a live key would
 * (CONTRACT.md, "Test mode"), or more with a test subscription (testPartitionAccess). Access
 * changes are the customer's, so they go to the live account whichever partition names them; the
 * test subscription is the test item's own.
 */
export function modeAwareAccounts(store: AccountStore, clock: () => Date): AccountStore {
  return {
    get: (partitionId) => (isTestPartition(partitionId) ? testAccount(store, partitionId, clock) : store.get(partitionId)),
    create: (account, openingGrant, entry) => store.create(account, openingGrant, entry),
    // Access rules belong to the account: set on the live one whichever scope is named.
    updateAccess: (partitionId, changes, now, audit) => store.updateAccess(accountOfPartition(partitionId), changes, now, audit),
    grant: async (entry, audit) => {
      // Opens the test balance first (at the grant's own time: one clock read, so the balance is
      // never created after the grant updated it); without a live account it is not opened,
      // and the store refuses the grant as it refuses any unknown account.
      if (isTestPartition(entry.accountId)) await testAccount(store, entry.accountId, () => new Date(entry.createdAt));
      await store.grant(entry, audit);
    },
    // Retention belongs to the account: both modes' outputs follow the live item's setting.
    setOutputRetention: (partitionId, days, now, audit) => store.setOutputRetention(accountOfPartition(partitionId), days, now, audit),
    listWithRetention: () => store.listWithRetention(),
    setTestSubscription: (partitionId, active, now) => {
      // A live account's access is Stripe's to set (updateAccess): this is test mode's own.
      if (!isTestPartition(partitionId)) return Promise.reject(new Error(`setTestSubscription: ${partitionId} is not a test partition.`));
      return store.setTestSubscription(partitionId, active, now);
    },
  };
}

type Access = Pick<Account, 'paidAccess' | 'subscriptionStatus'>;

/**
 * A test partition's access: the live account's, or, while a test subscription started in test
 * mode is active, paid access and an active subscription (play money, like test credits). An
 * ended test subscription shows as `canceled` where the live account has never subscribed.
 */
export function testPartitionAccess(live: Access, test: Access): Access {
  if (test.subscriptionStatus === 'active') return { paidAccess: true, subscriptionStatus: 'active' };
  return { paidAccess: live.paidAccess, subscriptionStatus: live.subscriptionStatus === 'none' ? test.subscriptionStatus : live.subscriptionStatus };
}

async function testAccount(store: AccountStore, partitionId: string, clock: () => Date): Promise<Account | undefined> {
  const [live, balance] = await Promise.all([store.get(accountOfPartition(partitionId)), store.get(partitionId)]);
  // A test partition never outlives its account.
  if (!live) return undefined;
  const test = balance ?? (await openTestBalance(store, partitionId, clock()));
  return { ...test, ...testPartitionAccess(live, test) };
}

/** Creates the test balance with its opening grant; a concurrent first use may win the race. */
async function openTestBalance(store: AccountStore, partitionId: string, now: Date): Promise<Account> {
  const createdAt = now.toISOString();
  const account: Account = {
    accountId: partitionId,
    credits: TEST_OPENING_CREDITS,
    // The test subscription (setTestSubscription): none yet.
    paidAccess: false,
    subscriptionStatus: 'none',
    taskCounts: { video: 0, image: 0 },
    createdAt,
    updatedAt: createdAt,
  };
  const grant: LedgerEntry = {
    entryId: newLedgerEntryId(),
    accountId: partitionId,
    kind: 'grant',
    amount: TEST_OPENING_CREDITS,
    reason: OPENING_REASON,
    createdAt,
  };
  try {
    await store.create(account, grant);
    return account;
  } catch (error) {
    if (!(error instanceof AccountExistsError)) throw error;
    // A concurrent first use created it: its write has committed, so a consistent read sees it.
    const existing = await store.get(partitionId);
    if (!existing) throw error;
    return existing;
  }
}
