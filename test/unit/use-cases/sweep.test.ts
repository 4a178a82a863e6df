import { getTask } from '#domain/tasks/get-task';
import { move } from '#domain/tasks/transitions';
import { ProviderUnavailableError } from '#domain/providers/provider';
import { QUEUE_STALL_MS } from '#domain/tasks/submission';
import { startTask } from '#domain/tasks/start-task';
import { sweep } from '#domain/tasks/sweep';
import { DELIVERY_STALL_MS } from '#domain/tasks/sweep-table';
import { memoryWorld, video, type MemoryWorld, deliveringVideo } from '#test-support/memory-world';

/** The sweeper on in-memory stores with a fixed clock (on DynamoDB Local: test/integration/task-lifecycle.test.ts). */
let world: MemoryWorld;
beforeEach(() => {
  world = memoryWorld();
  jest.spyOn(console, 'warn').mockImplementation(() => {});
  jest.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => jest.restoreAllMocks());

const MINUTE = 60_000;
const start = (accountId: string, prompt = 'p') => startTask(world.deps, accountId, video({ prompt }));
const report = (counts: Partial<Awaited<ReturnType<typeof sweep>>>) => ({
  examined: 0,
  refreshed: 0,
  copied: 0,
  repairedStarts: 0,
  announced: 0,
  purged: 0,
  timedOut: 0,
  lostSubmissions: 0,
  requeued: 0,
  resumed: 0,
  redelivered: 0,
  errors: 0,
  ...counts,
});

/** A start whose process dies before the provider heard of it: charged, processing, no job. */
/** A start whose create may have reached the provider (it failed inside the call): answered 200 `processing`. */
async function lostStart(accountId: string) {
  world.provider.onSubmit(async () => {
    throw new Error('process crashed while submitting');
  });
  await expect(start(accountId)).resolves.toMatchObject({ status: 'processing' });
  world.provider.onSubmit(async () => ({ type: 'accepted', jobId: `job_${world.provider.submits.length}` }));
  return (await world.stores.tasks.listPage(accountId, 'video', 1, 1)).tasks[0]!;
}

it('has nothing to do without processing tasks', async () => {
  expect(await sweep(world.deps)).toEqual(report({}));
});

it('times out a task still processing after 30 minutes, refunding once however often it runs', async () => {
  const accountId = await world.newAccount(100);
  const task = await start(accountId);
  world.advance(30 * MINUTE);
  // At exactly the limit it is not over it yet (and its last check is old: it is refreshed).
  expect(await sweep(world.deps)).toEqual(report({ examined: 1, refreshed: 1 }));
  world.advance(1);
  expect(await sweep(world.deps)).toEqual(report({ examined: 1, timedOut: 1 }));
  expect(await sweep(world.deps)).toEqual(report({}));
  expect(await world.stores.tasks.get(accountId, task.taskId)).toMatchObject({ status: 'failed', error: { code: 'timeout' } });
  expect(await world.money(accountId)).toMatchObject({ balance: 100, ledger: 100, kinds: ['grant', 'charge', 'refund'] });
});

it('uses the configured timeout', async () => {
  const accountId = await world.newAccount(100);
  const task = await start(accountId);
  world.deps.settings.taskTimeoutMs = 5 * MINUTE;
  world.advance(5 * MINUTE + 1);
  expect(await sweep(world.deps)).toMatchObject({ timedOut: 1 });
  expect((await world.stores.tasks.get(accountId, task.taskId))?.status).toBe('failed');
});

it('fails and refunds a task whose create may have been sent and no job was named, after the grace period only', async () => {
  const accountId = await world.newAccount(100);
  const lost = await lostStart(accountId);
  expect(lost.provider).toBeUndefined();
  expect((await world.money(accountId)).balance).toBe(75);

  world.advance(world.deps.settings.submissionGraceMs);
  expect(await sweep(world.deps)).toEqual(report({ examined: 1 }));
  expect((await world.stores.tasks.get(accountId, lost.taskId))?.status).toBe('processing');

  world.advance(1);
  expect(await sweep(world.deps)).toEqual(report({ examined: 1, lostSubmissions: 1 }));
  expect(await world.stores.tasks.get(accountId, lost.taskId)).toMatchObject({ status: 'failed', error: { code: 'internal_error' } });
  expect(await world.money(accountId)).toMatchObject({ balance: 100, ledger: 100 });
});

it('leaves a task alone whose submission was recorded late, after the sweeper listed it', async () => {
  const accountId = await world.newAccount(100);
  const lost = await lostStart(accountId);
  world.advance(world.deps.settings.submissionGraceMs + 1);
  // The late submission lands between the sweeper's listing and its decision.
  const listInFlight = world.stores.tasks.listInFlight.bind(world.stores.tasks);
  jest.spyOn(world.stores.tasks, 'listInFlight').mockImplementation((list) =>
    listInFlight(list).map(async function* (shard) {
      for await (const ref of shard) {
        const now = world.now().toISOString();
        await move(world.stores.tasks, lost, 'accept', { at: now, set: { provider: { name: 'scripted', jobId: 'late' }, lastCheckedAt: now }, guard: { jobId: 'late' } });
        yield ref;
      }
    }),
  );
  await sweep(world.deps);
  expect(await world.stores.tasks.get(accountId, lost.taskId)).toMatchObject({ status: 'processing', provider: { jobId: 'late' } });
  expect((await world.money(accountId)).balance).toBe(75);
});

it('refreshes tasks nobody polled for 30 s, and only those', async () => {
  const accountId = await world.newAccount(100);
  const stale = await start(accountId, 'stale');
  world.advance(20_000);
  const fresh = await start(accountId, 'fresh');
  world.provider.onFetch(async () => ({ type: 'failed', code: 'upstream_error', message: 'died' }));
  world.advance(10_000);
  expect(await sweep(world.deps)).toEqual(report({ examined: 2 }));
  world.advance(1);
  expect(await sweep(world.deps)).toEqual(report({ examined: 2, refreshed: 1 }));
  expect(world.provider.fetches).toBe(1);
  expect((await world.stores.tasks.get(accountId, stale.taskId))?.status).toBe('failed');
  expect((await world.stores.tasks.get(accountId, fresh.taskId))?.status).toBe('processing');
  expect(await world.money(accountId)).toMatchObject({ balance: 75, ledger: 75 });
});

it('asks for the copy of outputs still waiting, and the copy completes the task', async () => {
  const accountId = await world.newAccount(100);
  const task = await start(accountId);
  world.copyQueue.refuse = true;
  world.provider.onFetch(async () => ({ type: 'completed', outputUrls: ['https://p.test/v'] }));
  world.advance(5_000);
  await getTask(world.deps, accountId, 'video', task.taskId);
  world.copyQueue.refuse = false;
  expect(await sweep(world.deps)).toEqual(report({ examined: 1, copied: 1 }));
  expect(world.copyQueue.requests).toEqual([{ accountId, taskId: task.taskId }]);
  await world.copyQueue.drain();
  expect(await world.stores.tasks.get(accountId, task.taskId)).toMatchObject({ status: 'completed' });
  expect(await sweep(world.deps)).toEqual(report({}));
});

it('goes on with the other tasks when one of them fails, oldest first', async () => {
  const accountId = await world.newAccount(100);
  const first = await start(accountId, 'first');
  world.advance(1_000);
  const second = await start(accountId, 'second');
  let calls = 0;
  world.provider.onFetch(async () => {
    calls += 1;
    if (calls === 1) throw new TypeError('adapter bug');
    return { type: 'failed', code: 'upstream_error', message: 'died' };
  });
  world.advance(MINUTE);
  expect(await sweep(world.deps)).toEqual(report({ examined: 2, refreshed: 2, errors: 1 }));
  expect((await world.stores.tasks.get(accountId, first.taskId))?.status).toBe('processing');
  expect((await world.stores.tasks.get(accountId, second.taskId))?.status).toBe('failed');
});

it('resends a queued create whose message went missing, after QUEUE_STALL_MS only, and never refunds it for waiting', async () => {
  const accountId = await world.newAccount(100);
  world.provider.onSubmit(async () => {
    throw new ProviderUnavailableError('HTTP 429', { reason: 'rate_limited', retryAfterSeconds: 1 });
  });
  const task = await start(accountId);
  expect(world.submissions.splice(0).map((sent) => sent.message)).toEqual([{ accountId, taskId: task.taskId }]);

  // The message is lost (it was taken off the fake queue above).
  world.advance(QUEUE_STALL_MS);
  expect(await sweep(world.deps)).toEqual(report({ examined: 1 }));
  world.advance(1);
  expect(await sweep(world.deps)).toEqual(report({ examined: 1, requeued: 1 }));
  expect(world.submissions.map((sent) => sent.message)).toEqual([{ accountId, taskId: task.taskId }]);

  // Past the grace for unanswered creates: a queued task was never sent, so it is not "lost".
  world.advance(world.deps.settings.submissionGraceMs);
  expect(await sweep(world.deps)).toEqual(report({ examined: 1, requeued: 1 }));
  expect(await world.stores.tasks.get(accountId, task.taskId)).toMatchObject({ status: 'processing' });
  expect((await world.money(accountId)).balance).toBe(75);
});

it('asks about a job that calls back only once it has been silent for callbackSilenceMs', async () => {
  const accountId = await world.newAccount(100);
  world.provider.onSubmit(async () => ({ type: 'accepted', jobId: 'job_1', callbacks: true }));
  await start(accountId);
  world.advance(world.deps.settings.callbackSilenceMs);
  expect(await sweep(world.deps)).toEqual(report({ examined: 1 }));
  world.advance(1);
  expect(await sweep(world.deps)).toEqual(report({ examined: 1, refreshed: 1 }));
});

it('queues again a delivery whose message went missing, only once it has not moved for DELIVERY_STALL_MS past its next attempt', async () => {
  const accountId = await world.newAccount(100);
  const started = await deliveringVideo(world, accountId);
  expect(await world.stores.tasks.get(accountId, started.taskId)).toMatchObject({ phase: 'delivering', delivery: { attempts: 0 } });
  // The process died after the move to `delivering`: its message never reached the queue.
  world.deliveries.splice(0);
  world.advance(DELIVERY_STALL_MS);
  expect(await sweep(world.deps)).toEqual(report({ examined: 1 }));
  expect(world.deliveries).toEqual([]);
  world.advance(1);
  expect(await sweep(world.deps)).toEqual(report({ examined: 1, redelivered: 1 }));
  expect(world.deliveries).toEqual([{ message: { accountId, taskId: started.taskId }, delaySeconds: 0 }]);
  // A task past the task timeout while delivering is completed: never failed or refunded.
  world.advance(60 * MINUTE);
  expect(await sweep(world.deps)).toEqual(report({ examined: 1, redelivered: 1 }));
  expect(await world.money(accountId)).toMatchObject({ kinds: ['grant', 'charge'] });
});

it('leaves a delivery alone while an attempt holds its lease or its next attempt is still to come', async () => {
  const accountId = await world.newAccount(100);
  const started = await deliveringVideo(world, accountId);
  const task = (await world.stores.tasks.get(accountId, started.taskId))!;
  const nextAttemptAt = new Date(world.now().getTime() + 15 * MINUTE).toISOString();
  await move(world.stores.tasks, task, 'deliveryFailed', { set: { delivery: { status: 'pending', attempts: 1, lastError: 'HTTP 500', nextAttemptAt } }, guard: { deliveryAttempts: 0 } });
  world.deliveries.splice(0);
  world.advance(15 * MINUTE + DELIVERY_STALL_MS);
  expect(await sweep(world.deps)).toEqual(report({ examined: 1 }));
  world.advance(1);
  expect(await sweep(world.deps)).toEqual(report({ examined: 1, redelivered: 1 }));
});
