import { createAccount, grantCredits } from '#domain/accounts/account-admin';
import { accessChangeAudit } from '#domain/accounts/account-admin';
import { OPERATOR_STAMP } from '#domain/shared/audit';
import { admit } from '#domain/tasks/start-rules';
import { endTestSubscription, startTestSubscription } from '#domain/billing/billing-account';
import { PaidAccessRequiredError, UnauthorizedError, ValidationError } from '#domain/shared/errors';
import { listTransactions } from '#domain/accounts/list-transactions';
import { accountOfPartition, isLivemode, modeOfPartition, partitionOf } from '#domain/shared/partition';
import { modeAwareAccounts, TEST_OPENING_CREDITS } from '#domain/accounts/partition-accounts';
import { providerFor } from '#domain/providers/choice';
import { createMemoryStores as memoryStores } from '#test-support/memory-stores';
import { image, video } from '#test-support/memory-world';
import { ScriptedProvider } from '#test-support/scripted-provider';

/** Starts refused without paid access (images) or an active subscription (the subscription models). */
/** The memory stores with the real clock the wiring gives the admin use cases. */
const createMemoryStores = () => ({ ...memoryStores(), clock: () => new Date() });
const PAID_REQUESTS = [image(), video({ model: 'vid-2-0' }), video({ model: 'vid-2-0-fast' })];

describe('scopes', () => {
  it('derive a test scope from an account id and back', () => {
    const accountId = 'acc_01M7ZMF8J1P87E686TGQYTVN2H';
    expect(partitionOf(accountId, 'live')).toBe(accountId);
    const test = partitionOf(accountId, 'test');
    expect(test).not.toBe(accountId);
    expect([modeOfPartition(accountId), modeOfPartition(test)]).toEqual(['live', 'test']);
    expect([accountOfPartition(accountId), accountOfPartition(test)]).toEqual([accountId, accountId]);
    expect([isLivemode(accountId), isLivemode(test)]).toEqual([true, false]);
  });
});

describe('providerFor', () => {
  it('gives test-mode tasks the test provider only, and refuses when none is wired', () => {
    const provider = new ScriptedProvider();
    const testProvider = new ScriptedProvider();
    const live = { partitionId: 'acc_01M7ZMF8J1P87E686TGQYTVN2H' };
    const test = { partitionId: partitionOf(live.partitionId, 'test') };
    expect(providerFor({ provider, testProvider }, live)).toBe(provider);
    expect(providerFor({ provider, testProvider }, test)).toBe(testProvider);
    expect(() => providerFor({ provider }, test)).toThrow(/test-mode/);
  });
});

describe('the test balance', () => {
  it('opens once with 1000 and its grant, however many first uses race', async () => {
    const stores = createMemoryStores();
    const { account } = await createAccount(stores, { credits: 7, paidAccess: true, subscriptionStatus: 'active' });
    const accounts = modeAwareAccounts(stores.accounts, stores.clock);
    const scope = partitionOf(account.accountId, 'test');
    const seen = await Promise.all(Array.from({ length: 10 }, () => accounts.get(scope)));
    expect(seen.every((a) => a?.credits === TEST_OPENING_CREDITS)).toBe(true);
    expect((await stores.ledger.listForAccount(scope)).map((entry) => [entry.kind, entry.amount])).toEqual([['grant', 1000]]);
    expect((await accounts.get(account.accountId))?.credits).toBe(7);
  });

  it("has the live account's access: without a test subscription, the same refusals as live", async () => {
    const stores = createMemoryStores();
    const accounts = modeAwareAccounts(stores.accounts, stores.clock);
    const plain = (await createAccount(stores, { credits: 0 })).account.accountId;
    const paid = (await createAccount(stores, { credits: 0, paidAccess: true, subscriptionStatus: 'active' })).account.accountId;
    expect(await accounts.get(partitionOf(plain, 'test'))).toMatchObject({ paidAccess: false, subscriptionStatus: 'none' });
    expect(await accounts.get(partitionOf(paid, 'test'))).toMatchObject({ paidAccess: true, subscriptionStatus: 'active' });
    for (const request of PAID_REQUESTS) {
      const [test, live] = [await admit(accounts, partitionOf(plain, 'test'), request), await admit(accounts, plain, request)];
      expect(test.refusal).toBeInstanceOf(PaidAccessRequiredError);
      expect(test.refusal?.message).toBe(live.refusal?.message);
      expect((await admit(accounts, partitionOf(paid, 'test'), request)).refusal).toBeUndefined();
    }
  });

  it('leaves access changes to the live account, whichever scope names them', async () => {
    const stores = createMemoryStores();
    const { account } = await createAccount(stores, { credits: 7, paidAccess: true, subscriptionStatus: 'active' });
    const accounts = modeAwareAccounts(stores.accounts, stores.clock);
    const scope = partitionOf(account.accountId, 'test');
    await accounts.updateAccess(scope, { paidAccess: false, subscriptionStatus: 'canceled' }, 'now', accessChangeAudit(OPERATOR_STAMP, new Date()));
    expect(await accounts.get(account.accountId)).toMatchObject({ paidAccess: false, subscriptionStatus: 'canceled' });
    expect(await accounts.get(scope)).toMatchObject({ paidAccess: false, subscriptionStatus: 'canceled' });
  });

  it('opened by a first grant, is created at the grant time: one clock read per write', async () => {
    const stores = createMemoryStores();
    const { account } = await createAccount(stores, {}, '2026-03-01T12:00:00.000Z');
    // The store's own clock runs later than the time the grant was given.
    const accounts = modeAwareAccounts(stores.accounts, () => new Date('2026-03-01T12:00:05.000Z'));
    const granted = await grantCredits({ ...stores, accounts }, account.accountId, 50, 'top-up', { mode: 'test', now: '2026-03-01T12:00:01.000Z' });
    expect(granted).toMatchObject({ credits: 1050, createdAt: '2026-03-01T12:00:01.000Z', updatedAt: '2026-03-01T12:00:01.000Z' });
    const history = await stores.ledger.listForAccount(partitionOf(account.accountId, 'test'));
    expect(history.map((entry) => entry.createdAt)).toEqual(['2026-03-01T12:00:01.000Z', '2026-03-01T12:00:01.000Z']);
  });

  it('does not exist for an unknown account', async () => {
    const stores = createMemoryStores();
    expect(await modeAwareAccounts(stores.accounts, stores.clock).get(partitionOf('acc_01M7ZMF8J1P87E686TGQYTVN2H', 'test'))).toBeUndefined();
  });
});

describe('the test subscription', () => {
  const billingDeps = (stores: ReturnType<typeof createMemoryStores>) => ({ accounts: modeAwareAccounts(stores.accounts, stores.clock), clock: stores.clock });

  it('started in test mode, gives the test scope every model; live is unaffected; ended, the refusals are back', async () => {
    const stores = createMemoryStores();
    const deps = billingDeps(stores);
    const { account } = await createAccount(stores, { credits: 500 });
    const scope = partitionOf(account.accountId, 'test');
    expect(await startTestSubscription(deps, scope)).toMatchObject({ credits: 1000, paidAccess: true, subscriptionStatus: 'active' });
    for (const request of PAID_REQUESTS) {
      expect((await admit(deps.accounts, scope, request)).refusal).toBeUndefined();
      expect((await admit(deps.accounts, account.accountId, request)).refusal).toBeInstanceOf(PaidAccessRequiredError);
    }
    expect(await deps.accounts.get(account.accountId)).toMatchObject({ credits: 500, paidAccess: false, subscriptionStatus: 'none' });

    expect(await endTestSubscription(deps, scope)).toMatchObject({ paidAccess: false, subscriptionStatus: 'canceled' });
    for (const request of PAID_REQUESTS) expect((await admit(deps.accounts, scope, request)).refusal).toBeInstanceOf(PaidAccessRequiredError);
    // It can be started again, to rehearse both answers as often as needed.
    expect(await startTestSubscription(deps, scope)).toMatchObject({ paidAccess: true, subscriptionStatus: 'active' });
  });

  it('ended, leaves the live access in place: a live subscription still counts in test mode', async () => {
    const stores = createMemoryStores();
    const deps = billingDeps(stores);
    const { account } = await createAccount(stores, { credits: 0, paidAccess: true, subscriptionStatus: 'past_due' });
    const scope = partitionOf(account.accountId, 'test');
    await startTestSubscription(deps, scope);
    expect(await deps.accounts.get(scope)).toMatchObject({ paidAccess: true, subscriptionStatus: 'active' });
    expect(await endTestSubscription(deps, scope)).toMatchObject({ paidAccess: true, subscriptionStatus: 'past_due' });
    // A live change reaches the test scope too, whatever its own subscription did.
    await deps.accounts.updateAccess(account.accountId, { subscriptionStatus: 'active' }, 'now', accessChangeAudit(OPERATOR_STAMP, new Date()));
    expect(await deps.accounts.get(scope)).toMatchObject({ paidAccess: true, subscriptionStatus: 'active' });
  });

  it('answers the same to a repeat: a second start or end changes nothing', async () => {
    const stores = createMemoryStores();
    const deps = billingDeps(stores);
    const { account } = await createAccount(stores, {});
    const scope = partitionOf(account.accountId, 'test');
    // Ending one never started leaves "none".
    expect(await endTestSubscription(deps, scope)).toMatchObject({ paidAccess: false, subscriptionStatus: 'none' });
    const first = await startTestSubscription(deps, scope);
    expect(await startTestSubscription(deps, scope)).toEqual(first);
    const ended = await endTestSubscription(deps, scope);
    expect(await endTestSubscription(deps, scope)).toEqual(ended);
  });

  it('is set by one write however many starts race (a conditional write)', async () => {
    const stores = createMemoryStores();
    const { account } = await createAccount(stores, {});
    const accounts = modeAwareAccounts(stores.accounts, stores.clock);
    const scope = partitionOf(account.accountId, 'test');
    await accounts.get(scope);
    const changed = await Promise.all(Array.from({ length: 10 }, () => accounts.setTestSubscription(scope, true, 'now')));
    expect(changed.filter(Boolean)).toHaveLength(1);
    const ended = await Promise.all(Array.from({ length: 10 }, () => accounts.setTestSubscription(scope, false, 'later')));
    expect(ended.filter(Boolean)).toHaveLength(1);
  });

  it('is for test mode only: a live scope is refused with a validation error naming Vidgen-Mode', async () => {
    const stores = createMemoryStores();
    const deps = billingDeps(stores);
    const { account } = await createAccount(stores, {});
    for (const change of [startTestSubscription, endTestSubscription]) {
      const refused = change(deps, account.accountId);
      await expect(refused).rejects.toBeInstanceOf(ValidationError);
      await expect(refused).rejects.toMatchObject({ field: 'Vidgen-Mode' });
    }
    expect(await deps.accounts.get(account.accountId)).toMatchObject({ paidAccess: false, subscriptionStatus: 'none' });
  });

  it('needs an account: a scope whose account is gone is unauthorized', async () => {
    const deps = billingDeps(createMemoryStores());
    await expect(startTestSubscription(deps, partitionOf('acc_01M7ZMF8J1P87E686TGQYTVN2H', 'test'))).rejects.toBeInstanceOf(UnauthorizedError);
  });
});

describe('listTransactions', () => {
  it("opens a test balance when it is the test key's first call, and lists the opening grant", async () => {
    const stores = createMemoryStores();
    const { account } = await createAccount(stores, { credits: 7, paidAccess: true, subscriptionStatus: 'active' });
    const deps = { accounts: modeAwareAccounts(stores.accounts, stores.clock), ledger: stores.ledger };
    const page = await listTransactions(deps, partitionOf(account.accountId, 'test'), 1, 20);
    expect(page).toMatchObject({ total: 1, totalPages: 1, hasMore: false });
    expect(page.items.map((entry) => [entry.kind, entry.amount])).toEqual([['grant', TEST_OPENING_CREDITS]]);
    // The live ledger is the account's own (its opening grant of 7).
    expect((await listTransactions(deps, account.accountId, 1, 20)).items.map((entry) => entry.amount)).toEqual([7]);
  });

  it('refuses a scope whose account does not exist', async () => {
    const stores = createMemoryStores();
    const deps = { accounts: modeAwareAccounts(stores.accounts, stores.clock), ledger: stores.ledger };
    await expect(listTransactions(deps, partitionOf('acc_01M7ZMF8J1P87E686TGQYTVN2H', 'test'), 1, 20)).rejects.toBeInstanceOf(UnauthorizedError);
  });
});
