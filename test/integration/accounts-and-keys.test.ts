import { DescribeTableCommand, DescribeTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { buildAppContext, type AppContext } from '#app-context';
import {
  createAccount,
  createApiKey,
  describeAccount,
  grantCredits,
  revokeApiKey,
  setAccess,
} from '#domain/accounts/account-admin';
import { authenticate } from '#domain/accounts/authenticate';
import { NotFoundError, UnauthorizedError, ValidationError } from '#domain/shared/errors';
import { ledgerSum } from '#domain/accounts/ledger';
import { countingCommands } from '#test-support/command-counter';
import { createTestDb, dropTestDb, testConfig } from '#test-support/test-db';

let ctx: AppContext;
let stores: Pick<AppContext, 'accounts' | 'apiKeys' | 'ledger' | 'clock'>;

beforeAll(async () => {
  const db = await createTestDb();
  ctx = buildAppContext(testConfig(db.tableName));
  stores = { accounts: ctx.accounts, apiKeys: ctx.apiKeys, ledger: ctx.ledger, clock: ctx.clock };
  db.doc.destroy();
});

afterAll(async () => {
  await dropTestDb(ctx.db);
});

describe('the table', () => {
  it('is created from the shared definition, with gsi1 and TTL on expires_at', async () => {
    const { Table } = await ctx.db.doc.send(new DescribeTableCommand({ TableName: ctx.db.tableName }));
    expect(Table?.KeySchema).toEqual([
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ]);
    expect(Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName)).toEqual(['gsi1', 'gsi2']);
    const ttl = await ctx.db.doc.send(new DescribeTimeToLiveCommand({ TableName: ctx.db.tableName }));
    expect(ttl.TimeToLiveDescription).toMatchObject({ AttributeName: 'expires_at', TimeToLiveStatus: 'ENABLED' });
  });
});

describe('accounts', () => {
  it('are created with their opening grant in the ledger and a working key', async () => {
    const { account, key } = await createAccount(stores, { credits: 250, paidAccess: true, subscriptionStatus: 'active' });
    expect(await ctx.accounts.get(account.accountId)).toEqual(account);
    const entries = await ctx.ledger.listForAccount(account.accountId);
    expect(entries).toEqual([expect.objectContaining({ kind: 'grant', amount: 250, reason: 'opening balance' })]);
    const principal = await authenticate(ctx.apiKeys, `Bearer ${key.apiKey}`, 60, new Date());
    expect(principal).toEqual({
      kind: 'apiKey',
      partitionId: account.accountId,
      mode: 'live',
      keyId: key.keyId,
      rateLimit: 60,
      scopes: ['generate', 'read', 'webhooks'],
    });
  });

  it('start with no credits, no paid access and no subscription by default, and no ledger entry', async () => {
    const { account } = await createAccount(stores);
    expect(account).toMatchObject({ credits: 0, paidAccess: false, subscriptionStatus: 'none' });
    expect(await ctx.ledger.listForAccount(account.accountId)).toEqual([]);
  });

  it('change access flags and refuse unknown accounts', async () => {
    const { account } = await createAccount(stores);
    const updated = await setAccess(stores, account.accountId, { paidAccess: true, subscriptionStatus: 'past_due' });
    expect(updated).toMatchObject({ paidAccess: true, subscriptionStatus: 'past_due', credits: 0 });
    await expect(setAccess(stores, 'acc_missing', { paidAccess: true })).rejects.toBeInstanceOf(NotFoundError);
    await expect(setAccess(stores, account.accountId, {})).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('credit grants', () => {
  it('keep the balance equal to the ledger sum under 40 concurrent grants, a moved count read from the refusal', async () => {
    const { account } = await createAccount(stores, { credits: 10 });
    const amounts = Array.from({ length: 40 }, (_, i) => i + 1);
    const sent = await countingCommands(ctx.db, () => Promise.all(amounts.map((amount) => grantCredits(stores, account.accountId, amount, `grant ${amount}`))));
    // Each try is one transaction; a count is read for a grant's first try and after a conflict
    // only, never after a refusal that hands the moved count back.
    // (The domain reads the account once per grant, before it.)
    const tries = sent.get('TransactWriteItemsCommand') ?? 0;
    const reads = sent.get('GetItemCommand') ?? 0;
    expect(tries).toBeGreaterThan(40);
    expect(reads).toBeLessThan(tries);
    const after = await ctx.accounts.get(account.accountId);
    const entries = await ctx.ledger.listForAccount(account.accountId);
    expect(after?.credits).toBe(10 + 820);
    expect(entries).toHaveLength(41);
    expect(ledgerSum(entries)).toBe(after?.credits);
    // About 40 x 40 / 2 transactions in all: minutes for DynamoDB Local on a loaded 2-core machine.
  }, 180_000);

  it('to an unknown account write nothing to the ledger', async () => {
    await expect(grantCredits(stores, 'acc_ghost', 5, 'nope')).rejects.toBeInstanceOf(NotFoundError);
    expect(await ctx.ledger.listForAccount('acc_ghost')).toEqual([]);
  });

  it.each([0, -5, 2.5, Number.NaN])('refuse the amount %p', async (amount) => {
    const { account } = await createAccount(stores);
    await expect(grantCredits(stores, account.accountId, amount, 'bad')).rejects.toBeInstanceOf(ValidationError);
    expect(await ctx.ledger.listForAccount(account.accountId)).toEqual([]);
  });

  it('need a reason', async () => {
    const { account } = await createAccount(stores);
    await expect(grantCredits(stores, account.accountId, 5, '  ')).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('API keys', () => {
  it('are stored as a hash only and listed per account', async () => {
    const { account, key } = await createAccount(stores);
    const second = await createApiKey(stores, account.accountId, { rateLimit: 5 });
    const summary = await describeAccount(stores, account.accountId);
    expect(summary.keys.map((record) => record.keyId).sort()).toEqual([key.keyId, second.keyId].sort());
    const stored = JSON.stringify(summary.keys);
    expect(stored).not.toContain(key.apiKey);
    expect(stored).not.toContain(second.apiKey);
    expect(summary.keys.find((record) => record.keyId === second.keyId)?.rateLimit).toBe(5);
  });

  it('stop authenticating once revoked; revoking twice keeps the first time', async () => {
    const { key } = await createAccount(stores);
    const first = await revokeApiKey(stores, key.keyId, '2026-11-21T10:00:00.000Z');
    const again = await revokeApiKey(stores, key.keyId, '2026-11-21T11:00:00.000Z');
    expect(again.revokedAt).toBe(first.revokedAt);
    await expect(authenticate(ctx.apiKeys, `Bearer ${key.apiKey}`, 60, new Date())).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it('cannot be made for an unknown account, revoked when unknown, or given a bad rate limit', async () => {
    await expect(createApiKey(stores, 'acc_ghost')).rejects.toBeInstanceOf(NotFoundError);
    await expect(revokeApiKey(stores, 'key_ghost')).rejects.toBeInstanceOf(NotFoundError);
    const { account } = await createAccount(stores);
    await expect(createApiKey(stores, account.accountId, { rateLimit: 0 })).rejects.toBeInstanceOf(ValidationError);
  });
});
