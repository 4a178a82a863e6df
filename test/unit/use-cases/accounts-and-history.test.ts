import { createAccount, createApiKey, describeAccount, grantCredits, revokeApiKey, setAccess } from '#domain/accounts/account-admin';
import { authenticate } from '#domain/accounts/authenticate';
import { NotFoundError, UnauthorizedError, ValidationError } from '#domain/shared/errors';
import { listTasks } from '#domain/tasks/list-tasks';
import { startTask } from '#domain/tasks/start-task';
import { memoryWorld, video, type MemoryWorld } from '#test-support/memory-world';

/** The operator's use cases and history pages on in-memory stores (on DynamoDB Local: test/integration). */
let world: MemoryWorld;
beforeEach(() => {
  world = memoryWorld();
});
/** The admin use cases' stores, on the world's clock. */
const admin = () => ({ ...world.stores, clock: world.now });

describe('accounts', () => {
  it('open with their grant, take further grants, and always sum to their ledger', async () => {
    const { account, key } = await createAccount(admin(), { credits: 10 }, '2026-03-01T00:00:00.000Z');
    expect(account).toMatchObject({ credits: 10, paidAccess: false, subscriptionStatus: 'none', taskCounts: { video: 0, image: 0 } });
    expect((await authenticate(world.stores.apiKeys, `Bearer ${key.apiKey}`, 60, world.now())).partitionId).toBe(account.accountId);
    expect(await grantCredits(admin(), account.accountId, 5, '  promo  ')).toMatchObject({ credits: 15 });
    expect(await describeAccount(admin(), account.accountId)).toMatchObject({ ledgerSum: 15, ledgerEntries: 2, keys: [{ keyId: key.keyId }] });
    expect((await world.money(account.accountId)).entries.map((entry) => entry.reason)).toEqual(['opening balance', 'promo']);
  });

  it('refuse bad grants and unknown accounts without writing anything', async () => {
    const { account } = await createAccount(admin());
    await expect(grantCredits(admin(), account.accountId, 0, 'x')).rejects.toBeInstanceOf(ValidationError);
    await expect(grantCredits(admin(), account.accountId, 1.5, 'x')).rejects.toBeInstanceOf(ValidationError);
    await expect(grantCredits(admin(), account.accountId, 5, ' ')).rejects.toBeInstanceOf(ValidationError);
    await expect(grantCredits(admin(), 'acc_nobody', 5, 'x')).rejects.toBeInstanceOf(NotFoundError);
    await expect(setAccess(admin(), account.accountId, {})).rejects.toBeInstanceOf(ValidationError);
    await expect(setAccess(admin(), 'acc_nobody', { paidAccess: true })).rejects.toBeInstanceOf(NotFoundError);
    await expect(createApiKey(admin(), 'acc_nobody')).rejects.toBeInstanceOf(NotFoundError);
    expect(await describeAccount(admin(), account.accountId)).toMatchObject({ ledgerSum: 0, ledgerEntries: 0 });
  });

  it('stop authenticating a revoked key', async () => {
    const { account, key } = await createAccount(admin());
    const second = await createApiKey(admin(), account.accountId, { rateLimit: 5 });
    await revokeApiKey(admin(), key.keyId);
    await expect(authenticate(world.stores.apiKeys, `Bearer ${key.apiKey}`, 60, world.now())).rejects.toBeInstanceOf(UnauthorizedError);
    expect(await authenticate(world.stores.apiKeys, `Bearer ${second.apiKey}`, 60, world.now())).toMatchObject({ partitionId: account.accountId, rateLimit: 5 });
  });
});

describe('history pages', () => {
  it('are newest first, exact, and empty past the end', async () => {
    const accountId = await world.newAccount(1000);
    for (let i = 0; i < 7; i += 1) await startTask(world.deps, accountId, video({ prompt: `task ${i}` }));
    const page1 = await listTasks(world.stores, accountId, 'video', 1, 3, world.now());
    expect(page1.items.map((task) => task.params.prompt)).toEqual(['task 6', 'task 5', 'task 4']);
    expect(page1).toMatchObject({ page: 1, limit: 3, total: 7, totalPages: 3, hasMore: true });
    const page3 = await listTasks(world.stores, accountId, 'video', 3, 3, world.now());
    expect(page3.items.map((task) => task.params.prompt)).toEqual(['task 0']);
    expect(page3.hasMore).toBe(false);
    expect(await listTasks(world.stores, accountId, 'video', 4, 3, world.now())).toEqual({
      items: [],
      page: 4,
      limit: 3,
      total: 7,
      totalPages: 3,
      hasMore: false,
    });
    expect(await listTasks(world.stores, accountId, 'image', 1, 3, world.now())).toMatchObject({ total: 0, totalPages: 0 });
  });
});
