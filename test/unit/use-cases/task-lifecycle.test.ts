import { NotFoundError } from '#domain/shared/errors';
import { move } from '#domain/tasks/transitions';
import { getTask } from '#domain/tasks/get-task';
import { ProviderUnavailableError } from '#domain/providers/provider';
import { startTask } from '#domain/tasks/start-task';
import type { Task, TaskKind } from '#domain/tasks/task';
import { copyOutputs } from '#domain/tasks/lifecycle/outputs';
import { failTask } from '#domain/tasks/lifecycle/endings';
import { refreshTask } from '#domain/tasks/lifecycle/outcomes';
import { image, memoryWorld, video, type MemoryWorld } from '#test-support/memory-world';

/**
 * What happens after a start, on in-memory stores with a fixed clock: polls that ask the
 * provider, the copy of results, failure with its refund. The same paths run on DynamoDB
 * Local in test/integration/task-lifecycle.test.ts.
 */
let world: MemoryWorld;
beforeEach(() => {
  world = memoryWorld();
  jest.spyOn(console, 'warn').mockImplementation(() => {});
  jest.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => jest.restoreAllMocks());

async function startedVideo(credits = 100): Promise<{ accountId: string; task: Task }> {
  const accountId = await world.newAccount(credits);
  return { accountId, task: await startTask(world.deps, accountId, video()) };
}

const poll = (accountId: string, task: Task, kind: TaskKind = task.kind) => getTask(world.deps, accountId, kind, task.taskId);
const refunds = async (accountId: string) => (await world.money(accountId)).kinds.filter((kind) => kind === 'refund').length;

describe('polling a task', () => {
  it("answers another account's task, the other kind and a malformed id as not found", async () => {
    const { accountId, task } = await startedVideo();
    const stranger = await world.newAccount(0);
    await expect(poll(stranger, task)).rejects.toBeInstanceOf(NotFoundError);
    await expect(poll(accountId, task, 'image')).rejects.toBeInstanceOf(NotFoundError);
    await expect(getTask(world.deps, accountId, 'video', 'vid_nope')).rejects.toBeInstanceOf(NotFoundError);
    await expect(getTask(world.deps, accountId, 'video', `vid_${'Z'.repeat(26)}`)).rejects.toBeInstanceOf(NotFoundError);
    expect(world.provider.fetches).toBe(0);
  });

  it('asks the provider at most once per 2 s; a failed check changes nothing', async () => {
    const { accountId, task } = await startedVideo();
    // The submission itself counts as the latest check.
    expect(await poll(accountId, task)).toEqual(task);
    expect(world.provider.fetches).toBe(0);
    world.advance(2_000);
    world.provider.onFetch(async () => Promise.reject(new ProviderUnavailableError('timeout')));
    expect(await poll(accountId, task)).toMatchObject({ status: 'processing' });
    world.advance(1_999);
    expect(await poll(accountId, task)).toMatchObject({ status: 'processing' });
    expect(world.provider.fetches).toBe(1);
    world.advance(1);
    await poll(accountId, task);
    expect(world.provider.fetches).toBe(2);
  });

  it('shares one upstream check among many concurrent polls', async () => {
    const { accountId, task } = await startedVideo();
    world.advance(5_000);
    const polled = await Promise.all(Array.from({ length: 15 }, () => poll(accountId, task)));
    expect(world.provider.fetches).toBe(1);
    expect(polled.every((result) => result.status === 'processing')).toBe(true);
    expect((await world.stores.tasks.get(accountId, task.taskId))?.lastCheckedAt).toBe(world.now().toISOString());
  });

  it('answers with the stored state when the check throws something unexpected', async () => {
    const { accountId, task } = await startedVideo();
    world.provider.onFetch(async () => {
      throw new TypeError('provider adapter bug');
    });
    world.advance(5_000);
    expect(await poll(accountId, task)).toMatchObject({ taskId: task.taskId, status: 'processing' });
  });

  it('never asks about a final task or one the provider has not accepted', async () => {
    const { accountId, task } = await startedVideo();
    const failed = await failTask(world.deps, task, { code: 'timeout', message: 'x' });
    world.advance(60_000);
    expect(await poll(accountId, task)).toEqual(failed);
    const unsubmitted = { ...task, provider: undefined };
    expect(await refreshTask(world.deps, unsubmitted)).toBe(unsubmitted);
    expect(world.provider.fetches).toBe(0);
  });
});

describe('completing', () => {
  it('keeps a finished video processing until our copy exists, then serves our URL', async () => {
    const { accountId, task } = await startedVideo();
    world.provider.onFetch(async () => ({ type: 'completed', outputUrls: ['https://provider.test/out.mp4'] }));
    world.advance(5_000);
    const polled = await poll(accountId, task);
    expect(polled).toMatchObject({ status: 'processing', pendingOutputs: ['https://provider.test/out.mp4'] });
    expect(world.copyQueue.requests).toEqual([{ accountId, taskId: task.taskId }]);
    await world.copyQueue.drain();
    const done = await poll(accountId, task);
    expect(done).toMatchObject({ status: 'completed', outputUrls: [`https://media.test/videos/${task.taskId}.mp4`], completedAt: world.now().toISOString() });
    expect(done.pendingOutputs).toBeUndefined();
    expect(world.media.objects.get(`videos/${task.taskId}.mp4`)).toEqual({ sourceUrl: 'https://provider.test/out.mp4', contentType: 'video/mp4' });
    expect(await world.money(accountId)).toMatchObject({ balance: 75, ledger: 75, kinds: ['grant', 'charge'] });
  });

  it('copies every image of a result under its format', async () => {
    const accountId = await world.newAccount(100, { paidAccess: true, subscriptionStatus: 'active' });
    const task = await startTask(world.deps, accountId, image({ outputFormat: 'jpg' }));
    world.provider.onFetch(async () => ({ type: 'completed', outputUrls: ['https://p.test/a', 'https://p.test/b'] }));
    world.advance(5_000);
    await poll(accountId, task);
    await world.copyQueue.drain();
    const done = await poll(accountId, task);
    const base = `https://media.test/images/${task.taskId}`;
    expect(done).toMatchObject({ status: 'completed', outputUrls: [`${base}-1.jpg`, `${base}-2.jpg`] });
    expect(world.media.objects.get(`images/${task.taskId}-2.jpg`)).toEqual({ sourceUrl: 'https://p.test/b', contentType: 'image/jpeg' });
  });

  it('records the outputs and enqueues the copy once, however many polls see the result', async () => {
    const { accountId, task } = await startedVideo();
    world.deps.settings.checkIntervalMs = 0;
    world.copyQueue.work = undefined;
    world.provider.onFetch(async () => ({ type: 'completed', outputUrls: ['https://p.test/v'] }));
    world.advance(1);
    await Promise.all(Array.from({ length: 5 }, () => poll(accountId, task)));
    world.advance(1);
    await poll(accountId, task);
    expect(world.copyQueue.requests).toHaveLength(1);
  });

  it('keeps the outputs when the copy request cannot be sent (the sweeper asks again)', async () => {
    const { accountId, task } = await startedVideo();
    world.copyQueue.refuse = true;
    world.provider.onFetch(async () => ({ type: 'completed', outputUrls: ['https://p.test/v'] }));
    world.advance(5_000);
    expect(await poll(accountId, task)).toMatchObject({ status: 'processing', pendingOutputs: ['https://p.test/v'] });
    expect(world.copyQueue.requests).toEqual([]);
  });

  it('fails and refunds a result that came without outputs', async () => {
    const { accountId, task } = await startedVideo();
    world.provider.onFetch(async () => ({ type: 'completed', outputUrls: [] }));
    world.advance(5_000);
    expect(await poll(accountId, task)).toMatchObject({ status: 'failed', error: { code: 'upstream_error' } });
    expect(await world.money(accountId)).toMatchObject({ balance: 100, ledger: 100 });
  });

  it('counts failed copies and gives up into failed + one refund after the bound', async () => {
    const { accountId, task } = await startedVideo();
    world.media.failing = () => true;
    await move(world.stores.tasks, task, 'outputs', { at: world.now().toISOString(), set: { pendingOutputs: ['https://p.test/gone'] } });
    const max = world.deps.settings.maxCopyAttempts;
    for (let attempt = 1; attempt < max; attempt += 1) {
      const latest = (await world.stores.tasks.get(accountId, task.taskId))!;
      expect(await copyOutputs(world.deps, latest)).toMatchObject({ status: 'processing', copyAttempts: attempt });
    }
    const last = await copyOutputs(world.deps, (await world.stores.tasks.get(accountId, task.taskId))!);
    expect(last).toMatchObject({ status: 'failed', copyAttempts: max, error: { code: 'upstream_error' } });
    expect(await copyOutputs(world.deps, last)).toEqual(last);
    expect(await world.money(accountId)).toMatchObject({ balance: 100, ledger: 100, kinds: ['grant', 'charge', 'refund'] });
  });

  it('copies and completes once when two copies of the same result are asked for at once: the second leaves it to the first', async () => {
    const { accountId, task } = await startedVideo();
    await move(world.stores.tasks, task, 'outputs', { at: world.now().toISOString(), set: { pendingOutputs: ['https://p.test/v'] } });
    const pending = (await world.stores.tasks.get(accountId, task.taskId))!;
    const copies = jest.spyOn(world.media, 'copyFromUrl');
    const [a, b] = await Promise.all([copyOutputs(world.deps, pending), copyOutputs(world.deps, pending)]);
    expect(copies).toHaveBeenCalledTimes(1);
    expect([a.status, b.status]).toContain('completed');
    expect(await world.stores.tasks.get(accountId, task.taskId)).toMatchObject({ status: 'completed', copyAttempts: 0 });
    expect(await world.money(accountId)).toMatchObject({ balance: 75, kinds: ['grant', 'charge'] });
    expect(world.media.objects.has(`videos/${task.taskId}.mp4`)).toBe(true);
  });

  it('removes its copy when the task ended otherwise (timed out) while it was copying', async () => {
    const { accountId, task } = await startedVideo();
    await move(world.stores.tasks, task, 'outputs', { at: world.now().toISOString(), set: { pendingOutputs: ['https://p.test/v'] } });
    const pending = (await world.stores.tasks.get(accountId, task.taskId))!;
    await failTask(world.deps, pending, { code: 'timeout', message: 'too slow' });
    expect(await copyOutputs(world.deps, pending)).toMatchObject({ status: 'failed' });
    expect(world.media.objects.has(`videos/${task.taskId}.mp4`)).toBe(false);
  });
});

describe('failing', () => {
  it('refunds exactly once when many concurrent polls see the task fail, with our words for it', async () => {
    const { accountId, task } = await startedVideo();
    world.provider.onFetch(async () => ({ type: 'failed', code: 'content_rejected', message: 'flagged by vendor X' }));
    // With no interval every poll asks the provider, so all of them see the failure.
    world.deps.settings.checkIntervalMs = 0;
    world.advance(5_000);
    const results = await Promise.all(Array.from({ length: 20 }, () => poll(accountId, task)));
    expect(world.provider.fetches).toBeGreaterThan(1);
    expect(results.some((result) => result.status === 'failed')).toBe(true);
    expect(await refunds(accountId)).toBe(1);
    expect(await world.money(accountId)).toMatchObject({ balance: 100, ledger: 100 });
    const final = await world.stores.tasks.get(accountId, task.taskId);
    expect(final).toMatchObject({ status: 'failed', error: { code: 'content_rejected', message: expect.stringContaining('content policy') } });
    expect(final!.error!.message).not.toContain('vendor');
  });

  it('refunds exactly once when 25 callers fail the same task at the same moment', async () => {
    const { accountId, task } = await startedVideo();
    const results = await Promise.all(Array.from({ length: 25 }, () => failTask(world.deps, task, { code: 'upstream_error', message: 'boom' })));
    expect(new Set(results.map((result) => result.status))).toEqual(new Set(['failed']));
    expect(await refunds(accountId)).toBe(1);
    expect(await world.money(accountId)).toMatchObject({ balance: 100, ledger: 100 });
  });

  it('never fails a completed task, nor refunds it', async () => {
    const { accountId, task } = await startedVideo();
    await move(world.stores.tasks, task, 'outputs', { at: world.now().toISOString(), set: { pendingOutputs: ['https://p.test/v'] } });
    const done = await copyOutputs(world.deps, (await world.stores.tasks.get(accountId, task.taskId))!);
    expect(await failTask(world.deps, task, { code: 'timeout', message: 'x' })).toEqual(done);
    expect(await world.money(accountId)).toMatchObject({ balance: 75, kinds: ['grant', 'charge'] });
  });
});
