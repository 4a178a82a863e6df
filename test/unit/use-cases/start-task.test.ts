import {
  EndUserSpendLimitExceededError,
  IdempotencyConflictError,
  SpendLimitExceededError,
  ValidationError,
  InsufficientCreditsError,
  PaidAccessRequiredError,
  UnauthorizedError,
  UpstreamError,
} from '#domain/shared/errors';
import { ProviderUnavailableError } from '#domain/providers/provider';
import { requestHash, startTask, type StartRequest } from '#domain/tasks/start-task';
import { attributionOf } from '#domain/tasks/attribution';
import { quoteStart } from '#domain/tasks/quote';
import type { SpendingKey } from '#domain/accounts/spending-key';
import { failTask } from '#domain/tasks/lifecycle/endings';
import { sweep } from '#domain/tasks/sweep';
import { image, memoryWorld, video, type MemoryWorld } from '#test-support/memory-world';

/** startTask on in-memory stores (test/integration/task-lifecycle.test.ts runs it on DynamoDB Local). */
let world: MemoryWorld;
beforeEach(() => {
  world = memoryWorld();
  jest.spyOn(console, 'warn').mockImplementation(() => {});
});
afterEach(() => jest.restoreAllMocks());

const start = (accountId: string, request: StartRequest, key?: string) => startTask(world.deps, accountId, request, key);
const paid = { paidAccess: true, subscriptionStatus: 'active' } as const;

describe('charging', () => {
  it('charges the price, creates the task processing and submits it with its params', async () => {
    const accountId = await world.newAccount(100);
    const task = await start(accountId, video());
    expect(task).toMatchObject({
      kind: 'video',
      partitionId: accountId,
      status: 'processing',
      seq: 1,
      creditsUsed: 25,
      provider: { name: 'scripted', jobId: 'job_1' },
      lastCheckedAt: world.now().toISOString(),
      createdAt: world.now().toISOString(),
    });
    expect(task.taskId).toMatch(/^vid_[0-9A-Z]{26}$/);
    expect(world.provider.submits).toEqual([{ kind: 'video', taskId: task.taskId, ...video().params }]);
    expect(await world.stores.tasks.get(accountId, task.taskId)).toEqual(task);
    const money = await world.money(accountId);
    expect(money).toMatchObject({ balance: 75, ledger: 75, kinds: ['grant', 'charge'] });
    expect(money.entries[1]).toMatchObject({ amount: -25, taskId: task.taskId, reason: 'video generation (vid-1-5-pro)' });
  });

  it.each([
    ['vid-1-5-pro for 5 s', 25, video()],
    ['vid-1-5-pro for 3 s', 15, video({ duration: 3 })],
    ['vid-2-0 for 5 s (7.5 per second, rounded up)', 38, video({ model: 'vid-2-0' })],
    ['vid-2-0 for 12 s', 90, video({ model: 'vid-2-0', duration: 12 })],
    ['vid-2-0-fast for 12 s', 60, video({ model: 'vid-2-0-fast', duration: 12 })],
    ['image-2', 5, image()],
  ] as const)('charges %s: %i credits', async (_, price, request) => {
    const accountId = await world.newAccount(100, paid);
    const task = await start(accountId, request);
    expect(task.creditsUsed).toBe(price);
    expect(await world.money(accountId)).toMatchObject({ balance: 100 - price, ledger: 100 - price });
  });

  it('stores end_user and metadata with the task and never sends them to the provider', async () => {
    const accountId = await world.newAccount(100);
    const task = await start(accountId, { ...video(), endUser: 'alice', metadata: { order: '1001' } });
    expect(task).toMatchObject({ endUser: 'alice', metadata: { order: '1001' } });
    expect(await world.stores.tasks.get(accountId, task.taskId)).toMatchObject({ endUser: 'alice', metadata: { order: '1001' } });
    expect(world.provider.submits).toEqual([{ kind: 'video', taskId: task.taskId, ...video().params }]);
  });

  it('spends the last credit exactly, then refuses the next start and writes nothing', async () => {
    const accountId = await world.newAccount(25);
    await start(accountId, video());
    const refusal = start(accountId, video({ duration: 3 }));
    await expect(refusal).rejects.toBeInstanceOf(InsufficientCreditsError);
    await expect(refusal).rejects.toMatchObject({ required: 15, available: 0 });
    expect(await world.money(accountId)).toMatchObject({ balance: 0, ledger: 0, kinds: ['grant', 'charge'] });
    expect(world.provider.submits).toHaveLength(1);
    expect((await world.stores.tasks.listPage(accountId, 'video', 1, 20)).total).toBe(1);
  });

  it('gives concurrent starts positions 1..n and never overdraws', async () => {
    const accountId = await world.newAccount(100);
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => start(accountId, video())));
    const started = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    expect(started.map((task) => task.seq).sort()).toEqual([1, 2, 3, 4]);
    const refused = results.filter((result) => result.status === 'rejected');
    expect(refused).toHaveLength(2);
    for (const result of refused) expect((result as PromiseRejectedResult).reason).toBeInstanceOf(InsufficientCreditsError);
    expect(await world.money(accountId)).toMatchObject({ balance: 0, ledger: 0 });
  });

  it('refuses an unknown account', async () => {
    await expect(start('acc_nobody', video())).rejects.toBeInstanceOf(UnauthorizedError);
    expect(world.provider.submits).toHaveLength(0);
  });
});

describe('paid access', () => {
  it.each([
    ['a subscription video model without paid access', video({ model: 'vid-2-0' }), {}],
    ['a subscription video model with a past-due subscription', video({ model: 'vid-2-0-fast' }), { paidAccess: true, subscriptionStatus: 'past_due' }],
    ['a subscription video model with paid access but no subscription', video({ model: 'vid-2-0' }), { paidAccess: true }],
    ['an image without paid access', image(), { subscriptionStatus: 'active' }],
  ] as const)('refuses %s, before looking at credits, and charges nothing', async (_, request, access) => {
    // No credits at all: the subscription check comes first (CONTRACT.md).
    const accountId = await world.newAccount(0, access);
    await expect(start(accountId, request)).rejects.toBeInstanceOf(PaidAccessRequiredError);
    expect((await world.money(accountId)).entries).toEqual([]);
    expect(world.provider.submits).toHaveLength(0);
  });

  it('lets anyone with credits use the model that needs no subscription', async () => {
    const accountId = await world.newAccount(25);
    expect((await start(accountId, video())).status).toBe('processing');
  });
});

describe('idempotency', () => {
  it('answers a repeat with the first task, charging and submitting once', async () => {
    const accountId = await world.newAccount(100);
    const first = await start(accountId, video(), 'key-1');
    const again = await start(accountId, video(), 'key-1');
    expect(again).toEqual(first);
    expect(world.provider.submits).toHaveLength(1);
    expect(await world.money(accountId)).toMatchObject({ balance: 75, kinds: ['grant', 'charge'] });
    expect(await world.stores.idempotency.get(accountId, 'key-1', world.now())).toMatchObject({
      taskId: first.taskId,
      outcome: { type: 'created' },
    });
  });

  it('answers a repeat with the task as it is now', async () => {
    const accountId = await world.newAccount(100);
    const first = await start(accountId, video(), 'k');
    await failTask(world.deps, first, { code: 'timeout', message: 'late' });
    expect(await start(accountId, video(), 'k')).toMatchObject({ taskId: first.taskId, status: 'failed' });
  });

  it('charges once for many concurrent retries with one key', async () => {
    const accountId = await world.newAccount(100);
    const tasks = await Promise.all(Array.from({ length: 10 }, () => start(accountId, video(), 'same')));
    expect(new Set(tasks.map((task) => task.taskId)).size).toBe(1);
    expect(world.provider.submits).toHaveLength(1);
    expect(await world.money(accountId)).toMatchObject({ balance: 75, ledger: 75 });
  });

  it('refuses another request under a used key, charging nothing', async () => {
    const accountId = await world.newAccount(100);
    await start(accountId, video(), 'k');
    await expect(start(accountId, video({ duration: 6 }), 'k')).rejects.toBeInstanceOf(IdempotencyConflictError);
    await expect(start(accountId, image(), 'k')).rejects.toBeInstanceOf(IdempotencyConflictError);
    expect(await world.money(accountId)).toMatchObject({ balance: 75, kinds: ['grant', 'charge'] });
  });

  it('treats the same request with its fields in another order as the same request', async () => {
    const accountId = await world.newAccount(100);
    const first = await start(accountId, video(), 'k');
    const { prompt, ...rest } = video().params;
    const reordered: StartRequest = { params: { ...rest, prompt }, kind: 'video' } as StartRequest;
    expect((await start(accountId, reordered, 'k')).taskId).toBe(first.taskId);
  });

  it('hashes a request without end_user and metadata exactly as before they existed (older records still match their retries)', () => {
    const before = video();
    // The hash an idempotency record written before the fields existed holds: the same canonical JSON.
    expect(requestHash({ ...before, ...attributionOf(undefined, undefined) })).toBe(requestHash(before));
    expect(requestHash({ ...before, ...attributionOf(undefined, {}) })).toBe(requestHash(before));
    expect(requestHash({ ...before, endUser: 'alice' })).not.toBe(requestHash(before));
    expect(requestHash({ ...before, metadata: { a: '1' } })).not.toBe(requestHash({ ...before, metadata: { a: '2' } }));
    expect(requestHash({ ...before, metadata: { a: '1', b: '2' } })).toBe(requestHash({ ...before, metadata: { b: '2', a: '1' } }));
  });

  it('refuses a retry under the same key for another end user or other metadata', async () => {
    const accountId = await world.newAccount(100);
    const first = await start(accountId, { ...video(), endUser: 'alice', metadata: { order: '1' } }, 'k');
    expect((await start(accountId, { ...video(), endUser: 'alice', metadata: { order: '1' } }, 'k')).taskId).toBe(first.taskId);
    await expect(start(accountId, { ...video(), endUser: 'bob', metadata: { order: '1' } }, 'k')).rejects.toBeInstanceOf(IdempotencyConflictError);
    await expect(start(accountId, { ...video(), endUser: 'alice' }, 'k')).rejects.toBeInstanceOf(IdempotencyConflictError);
  });

  it('keeps keys apart per account and frees a key after 24 hours', async () => {
    const [a, b] = [await world.newAccount(100), await world.newAccount(100)];
    const first = await start(a, video(), 'shared');
    expect((await start(b, video(), 'shared')).taskId).not.toBe(first.taskId);
    world.advance(24 * 60 * 60_000 - 1_000);
    expect((await start(a, video(), 'shared')).taskId).toBe(first.taskId);
    world.advance(1_000);
    const later = await start(a, video(), 'shared');
    expect(later.taskId).not.toBe(first.taskId);
    expect(await world.money(a)).toMatchObject({ balance: 50, ledger: 50 });
  });
});

describe("a key's limit per end user", () => {
  const limited: SpendingKey = { keyId: 'key_1', endUserMonthlySpendLimit: 50 };
  const through = (accountId: string, endUser: string | undefined, key: SpendingKey = limited) =>
    startTask(world.deps, accountId, { ...video(), ...(endUser !== undefined && { endUser }) }, undefined, key);

  it('refuses a start that names no end user with a 400 naming end_user, before anything is read or charged', async () => {
    const accountId = await world.newAccount(100);
    const refusal = through(accountId, undefined);
    await expect(refusal).rejects.toBeInstanceOf(ValidationError);
    await expect(refusal).rejects.toMatchObject({ field: 'end_user', message: expect.stringMatching(/^end_user: this API key has an end_user_monthly_spend_limit/) });
    await expect(quoteStart(world.deps, accountId, video(), limited)).rejects.toMatchObject({ field: 'end_user' });
    expect(await world.money(accountId)).toMatchObject({ balance: 100, kinds: ['grant'] });
  });

  it("lets each end user spend up to the limit, then refuses with the end user's message; others go on; a refund gives the room back", async () => {
    const accountId = await world.newAccount(1000);
    const first = await through(accountId, 'alice');
    await through(accountId, 'alice');
    const refusal = through(accountId, 'alice');
    await expect(refusal).rejects.toBeInstanceOf(EndUserSpendLimitExceededError);
    await expect(refusal).rejects.toThrow('end user "alice" has 0 left this month');
    expect((await through(accountId, 'bob')).endUser).toBe('bob');
    expect(await world.money(accountId)).toMatchObject({ balance: 925, ledger: 925 });
    await failTask(world.deps, first, { code: 'canceled', message: 'canceled' });
    expect((await through(accountId, 'alice')).chargedTo).toEqual({ keyId: 'key_1', month: world.now().toISOString().slice(0, 7), endUser: 'alice' });
    await expect(through(accountId, 'alice')).rejects.toBeInstanceOf(EndUserSpendLimitExceededError);
  });

  it("names the key's own limit when both would be passed, and refuses a price above the end user's limit outright", async () => {
    const accountId = await world.newAccount(1000);
    const both: SpendingKey = { ...limited, monthlySpendLimit: 60 };
    await through(accountId, 'alice', both);
    await through(accountId, 'alice', both);
    const refusal = through(accountId, 'alice', both);
    await expect(refusal).rejects.toBeInstanceOf(SpendLimitExceededError);
    await expect(refusal).rejects.not.toBeInstanceOf(EndUserSpendLimitExceededError);
    await expect(refusal).rejects.toThrow("this API key's monthly spend limit is 60 credits");
    const small: SpendingKey = { keyId: 'key_2', endUserMonthlySpendLimit: 20 };
    await expect(through(accountId, 'carol', small)).rejects.toThrow('allows each end user 20 credits a month (end_user_monthly_spend_limit), less than this request costs');
    expect((await quoteStart(world.deps, accountId, { ...video(), endUser: 'carol' }, small)).refusal).toBeInstanceOf(EndUserSpendLimitExceededError);
  });
});

describe('a submission the provider does not take', () => {
  it.each([
    ['refuses the prompt', async () => ({ type: 'rejected' as const, code: 'content_rejected' as const, message: 'flagged by vendor X' }), 'content_rejected'],
    ['refuses the input', async () => ({ type: 'rejected' as const, code: 'upstream_error' as const, message: 'bad input' }), 'upstream_error'],
    ['is unreachable', async () => Promise.reject(new ProviderUnavailableError('503')), 'upstream_error'],
  ])('when the provider %s: UpstreamError, the task failed and refunded once', async (_, answer, code) => {
    world.provider.onSubmit(answer);
    const accountId = await world.newAccount(100);
    await expect(start(accountId, video())).rejects.toBeInstanceOf(UpstreamError);
    const { tasks } = await world.stores.tasks.listPage(accountId, 'video', 1, 20);
    expect(tasks).toEqual([expect.objectContaining({ status: 'failed', error: expect.objectContaining({ code }) })]);
    // Our words, never the provider's.
    expect(tasks[0]!.error!.message).toContain('refunded');
    expect(tasks[0]!.error!.message).not.toContain('vendor');
    expect(await world.money(accountId)).toMatchObject({ balance: 100, ledger: 100, kinds: ['grant', 'charge', 'refund'] });
  });

  it('replays the same 502 for a retry with the key, without a second charge or submission', async () => {
    world.provider.onSubmit(async () => ({ type: 'rejected', code: 'upstream_error', message: 'no' }));
    const accountId = await world.newAccount(100);
    const first = await start(accountId, video(), 'k').catch((error: unknown) => error);
    expect(first).toBeInstanceOf(UpstreamError);
    const again = await start(accountId, video(), 'k').catch((error: unknown) => error);
    expect(again).toBeInstanceOf(UpstreamError);
    expect((again as Error).message).toBe((first as Error).message);
    expect(world.provider.submits).toHaveLength(1);
    expect(await world.money(accountId)).toMatchObject({ balance: 100, kinds: ['grant', 'charge', 'refund'] });
  });

  it('answers processing for a task whose create may have been sent (an error inside the call), and leaves it to the grace', async () => {
    world.provider.onSubmit(async () => {
      throw new TypeError('adapter bug');
    });
    const accountId = await world.newAccount(100);
    await expect(start(accountId, video())).resolves.toMatchObject({ status: 'processing', sentAt: world.now().toISOString() });
    const [task] = (await world.stores.tasks.listPage(accountId, 'video', 1, 1)).tasks;
    expect(task).toMatchObject({ status: 'processing' });
    expect(task!.provider).toBeUndefined();
    expect((await world.money(accountId)).balance).toBe(75);
  });

  it('answers with the refunded task when the sweeper gave it up while it was being submitted', async () => {
    const accountId = await world.newAccount(100);
    world.provider.onSubmit(async () => {
      // The sweeper's lost-submission pass runs while the provider is still answering.
      const job = world.provider.submits.at(-1)!;
      const task = await world.stores.tasks.get(accountId, job.taskId);
      await failTask(world.deps, task!, { code: 'internal_error', message: 'lost' }, 'lose');
      return { type: 'accepted', jobId: 'late-job' };
    });
    const task = await start(accountId, video());
    expect(task).toMatchObject({ status: 'failed', error: { code: 'internal_error' } });
    expect(task.provider).toBeUndefined();
    expect(await world.money(accountId)).toMatchObject({ balance: 100, ledger: 100, kinds: ['grant', 'charge', 'refund'] });
  });
});

describe('a start cut short before its settle', () => {
  it('is answered processing and charged; the sweeper settles it after the start grace, and an ending before that settles it first', async () => {
    const accountId = await world.newAccount(100);
    jest.spyOn(world.stores.tasks, 'settlePositions').mockRejectedValueOnce(new Error('crashed')).mockRejectedValueOnce(new Error('crashed'));
    const [swept, ended] = [await start(accountId, video()), await start(accountId, video())];
    expect([swept.seq, ended.seq]).toEqual([0, 0]);
    expect(await world.money(accountId)).toMatchObject({ balance: 50, ledger: 50 });
    expect((await world.stores.tasks.listPage(accountId, 'video', 1, 10)).tasks).toEqual([]);

    // Ended before any sweep (a failure, a cancel, a callback): it takes its position on the way.
    await failTask(world.deps, (await world.stores.tasks.get(accountId, ended.taskId))!, { code: 'internal_error', message: 'gone' });
    expect(await world.stores.tasks.get(accountId, ended.taskId)).toMatchObject({ seq: 2, status: 'failed' });

    world.advance(3 * 60_000);
    await sweep(world.deps);
    expect(await world.stores.tasks.get(accountId, swept.taskId)).toMatchObject({ seq: 1, status: 'processing' });
    expect((await world.stores.tasks.listPage(accountId, 'video', 1, 10)).tasks.map((task) => task.seq)).toEqual([2, 1]);
    expect(await world.money(accountId)).toMatchObject({ balance: 75, ledger: 75 });
  });
});
