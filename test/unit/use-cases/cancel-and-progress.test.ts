import { cancelTask } from '#domain/tasks/cancel-task';
import { NotFoundError, TaskNotCancelableError } from '#domain/shared/errors';
import { getTask } from '#domain/tasks/get-task';
import { progressOf } from '#domain/tasks/progress';
import { startTask } from '#domain/tasks/start-task';
import type { Task, VideoTask } from '#domain/tasks/task';
import { videoView } from '#contract/tasks';
import { refundEntry } from '#domain/tasks/charges';
import { memoryWorld, video, type MemoryWorld } from '#test-support/memory-world';

/** Cancel and progress on the in-memory stores, with a fixed clock and a scripted provider. */
let world: MemoryWorld;
beforeEach(() => {
  world = memoryWorld();
  jest.spyOn(console, 'warn').mockImplementation(() => {});
});
afterEach(() => jest.restoreAllMocks());

async function startedVideo(): Promise<{ accountId: string; task: Task }> {
  const accountId = await world.newAccount(100);
  return { accountId, task: await startTask(world.deps, accountId, video()) };
}

describe('cancel', () => {
  it('fails a processing task with `canceled`, refunds it once and asks the provider to stop the job', async () => {
    const { accountId, task } = await startedVideo();
    world.advance(10_000);
    const canceled = await cancelTask(world.deps, accountId, 'video', task.taskId);
    expect(canceled).toMatchObject({ status: 'failed', error: { code: 'canceled' }, completedAt: world.now().toISOString() });
    expect(world.provider.canceled).toEqual([task.provider!.jobId]);
    expect(await world.money(accountId)).toMatchObject({ balance: 100, ledger: 100, kinds: ['grant', 'charge', 'refund'] });
    // Final: a second cancel is refused and refunds nothing.
    await expect(cancelTask(world.deps, accountId, 'video', task.taskId)).rejects.toBeInstanceOf(TaskNotCancelableError);
    expect((await world.money(accountId)).kinds).toEqual(['grant', 'charge', 'refund']);
  });

  it('has one winner among many concurrent cancels: one refund, the others 409', async () => {
    const { accountId, task } = await startedVideo();
    const outcomes = await Promise.allSettled(Array.from({ length: 12 }, () => cancelTask(world.deps, accountId, 'video', task.taskId)));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    for (const outcome of outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected')) {
      expect(outcome.reason).toBeInstanceOf(TaskNotCancelableError);
    }
    expect(await world.money(accountId)).toMatchObject({ balance: 100, ledger: 100, kinds: ['grant', 'charge', 'refund'] });
  });

  it('refuses a task whose result is already recorded: it completes, and the cancel gets 409', async () => {
    const { accountId, task } = await startedVideo();
    world.provider.onFetch(async () => ({ type: 'completed', outputUrls: ['https://provider.test/out.mp4'] }));
    world.copyQueue.work = undefined; // the copy has not happened yet
    world.advance(3_000);
    await getTask(world.deps, accountId, 'video', task.taskId);
    expect((await world.stores.tasks.get(accountId, task.taskId))!.pendingOutputs).toEqual(['https://provider.test/out.mp4']);
    await expect(cancelTask(world.deps, accountId, 'video', task.taskId)).rejects.toThrow(/already completed/);
    expect((await world.stores.tasks.get(accountId, task.taskId))!.status).toBe('processing');
    expect((await world.money(accountId)).kinds).toEqual(['grant', 'charge']);
  });

  it('racing completion, ends exactly one way: completed with no refund, or canceled with no published result', async () => {
    for (let round = 0; round < 10; round += 1) {
      world = memoryWorld();
      const { accountId, task } = await startedVideo();
      world.provider.onFetch(async () => ({ type: 'completed', outputUrls: ['https://provider.test/out.mp4'] }));
      world.advance(3_000);
      const results = await Promise.allSettled([
        getTask(world.deps, accountId, 'video', task.taskId),
        cancelTask(world.deps, accountId, 'video', task.taskId),
        cancelTask(world.deps, accountId, 'video', task.taskId),
      ]);
      await world.copyQueue.drain();
      const final = (await world.stores.tasks.get(accountId, task.taskId))!;
      const money = await world.money(accountId);
      const cancels = results.slice(1).filter((r) => r.status === 'fulfilled').length;
      expect(money.balance).toBe(money.ledger);
      if (final.status === 'completed') {
        expect(cancels).toBe(0);
        expect(money.kinds).toEqual(['grant', 'charge']);
      } else {
        expect(final.error?.code).toBe('canceled');
        expect(cancels).toBe(1);
        expect(money.kinds).toEqual(['grant', 'charge', 'refund']);
        expect(world.media.objects.size).toBe(0);
      }
    }
  });

  it("answers another account's task, the other kind and malformed ids with 404", async () => {
    const { accountId, task } = await startedVideo();
    const stranger = await world.newAccount(0);
    await expect(cancelTask(world.deps, stranger, 'video', task.taskId)).rejects.toBeInstanceOf(NotFoundError);
    await expect(cancelTask(world.deps, accountId, 'image', task.taskId)).rejects.toBeInstanceOf(NotFoundError);
    await expect(cancelTask(world.deps, accountId, 'video', 'vid_x')).rejects.toBeInstanceOf(NotFoundError);
    expect((await world.money(accountId)).kinds).toEqual(['grant', 'charge']);
  });
});

describe('progress', () => {
  it('starts at 0, rises with time held at 95, and reaches 100 only when completed', async () => {
    const { accountId, task } = await startedVideo();
    expect(task.progress).toBe(0);
    const seen: number[] = [];
    for (const step of [5_000, 20_000, 60_000, 600_000, 3_600_000]) {
      world.advance(step);
      seen.push((await getTask(world.deps, accountId, 'video', task.taskId)).progress);
    }
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(seen[0]).toBeGreaterThan(0);
    expect(Math.max(...seen)).toBe(95);
    world.provider.onFetch(async () => ({ type: 'completed', outputUrls: ['https://provider.test/out.mp4'] }));
    world.advance(3_000);
    await getTask(world.deps, accountId, 'video', task.taskId);
    await world.copyQueue.drain();
    expect((await getTask(world.deps, accountId, 'video', task.taskId)).progress).toBe(100);
  });

  it("takes the provider's figure when it is ahead, and never goes down when it is behind", async () => {
    const { accountId, task } = await startedVideo();
    world.provider.onFetch(async () => ({ type: 'processing', progress: 70 }));
    world.advance(3_000);
    expect((await getTask(world.deps, accountId, 'video', task.taskId)).progress).toBe(70);
    world.provider.onFetch(async () => ({ type: 'processing', progress: 10 }));
    world.advance(3_000);
    expect((await getTask(world.deps, accountId, 'video', task.taskId)).progress).toBe(70);
  });

  it('keeps the last value when the task fails', async () => {
    const { accountId, task } = await startedVideo();
    world.advance(30_000);
    const before = progressOf((await world.stores.tasks.get(accountId, task.taskId))!, world.now());
    expect(before).toBeGreaterThan(0);
    const canceled = await cancelTask(world.deps, accountId, 'video', task.taskId);
    world.advance(600_000);
    expect(canceled.progress).toBe(before);
    expect((await getTask(world.deps, accountId, 'video', task.taskId)).progress).toBe(before);
  });
});

describe('the refund in the history', () => {
  it('says canceled for a canceled task and failed for any other failure', () => {
    const task = { kind: 'video', partitionId: 'acc_1', taskId: 'vid_1', creditsUsed: 15 } as Task;
    const now = '2026-03-01T12:00:00.000Z';
    expect(refundEntry(task, now, { code: 'canceled' })).toMatchObject({ kind: 'refund', amount: 15, reason: 'refund: video task canceled' });
    expect(refundEntry(task, now, { code: 'content_rejected' }).reason).toBe('refund: video task failed');
    expect(refundEntry({ ...task, kind: 'image' } as Task, now, { code: 'timeout' }).reason).toBe('refund: image task failed');
  });

  it('shows in the view as credits_refunded: 0 while processing, the whole charge once canceled', async () => {
    const { accountId, task } = await startedVideo();
    expect(videoView(task as VideoTask)).toMatchObject({ credits_used: 25, credits_refunded: 0 });
    const canceled = await cancelTask(world.deps, accountId, 'video', task.taskId);
    expect(videoView(canceled)).toMatchObject({ credits_used: 25, credits_refunded: 25 });
  });
});
