import { createAccount, grantCredits } from '#domain/accounts/account-admin';
import { UnauthorizedError } from '#domain/shared/errors';
import { listTransactions } from '#domain/accounts/list-transactions';
import { accountOfPartition, isLivemode, modeOfPartition, partitionOf } from '#domain/shared/partition';
import { modeAwareAccounts, TEST_OPENING_CREDITS } from '#domain/accounts/partition-accounts';
import { providerFor } from '#domain/providers/choice';
import { createMemoryStores } from '#test-support/memory-stores';
import { ScriptedProvider } from '#test-support/scripted-provider';

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
  it('opens once with 1000 and its grant, however many first uses race, with the live access rules', async () => {
    const stores = createMemoryStores();
    const { account } = await createAccount(stores, { credits: 7, paidAccess: true, subscriptionStatus: 'active' });
    const accounts = modeAwareAccounts(stores.accounts);
    const scope = partitionOf(account.accountId, 'test');
    const seen = await Promise.all(Array.from({ length: 10 }, () => accounts.get(scope)));
    expect(seen.every((a) => a?.credits === TEST_OPENING_CREDITS && a.paidAccess && a.subscriptionStatus === 'active')).toBe(true);
    expect((await stores.ledger.listForAccount(scope)).map((entry) => [entry.kind, entry.amount])).toEqual([['grant', 1000]]);
    expect((await accounts.get(account.accountId))?.credits).toBe(7);
    await accounts.updateAccess(scope, { paidAccess: false }, 'now');
    expect([(await accounts.get(scope))?.paidAccess, (await accounts.get(account.accountId))?.paidAccess]).toEqual([false, false]);
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
    expect(await modeAwareAccounts(stores.accounts).get(partitionOf('acc_01M7ZMF8J1P87E686TGQYTVN2H', 'test'))).toBeUndefined();
  });
});

describe('listTransactions', () => {
  it("opens a test balance when it is the test key's first call, and lists the opening grant", async () => {
    const stores = createMemoryStores();
    const { account } = await createAccount(stores, { credits: 7, paidAccess: true, subscriptionStatus: 'active' });
    const deps = { accounts: modeAwareAccounts(stores.accounts), ledger: stores.ledger };
    const page = await listTransactions(deps, partitionOf(account.accountId, 'test'), 1, 20);
    expect(page).toMatchObject({ total: 1, totalPages: 1, hasMore: false });
    expect(page.items.map((entry) => [entry.kind, entry.amount])).toEqual([['grant', TEST_OPENING_CREDITS]]);
    // The live ledger is the account's own (its opening grant of 7).
    expect((await listTransactions(deps, account.accountId, 1, 20)).items.map((entry) => entry.amount)).toEqual([7]);
  });

  it('refuses a scope whose account does not exist', async () => {
    const stores = createMemoryStores();
    const deps = { accounts: modeAwareAccounts(stores.accounts), ledger: stores.ledger };
    await expect(listTransactions(deps, partitionOf('acc_01M7ZMF8J1P87E686TGQYTVN2H', 'test'), 1, 20)).rejects.toBeInstanceOf(UnauthorizedError);
  });
});
