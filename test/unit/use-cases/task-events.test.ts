import { cancelTask } from '#domain/tasks/cancel-task';
import { getTask } from '#domain/tasks/get-task';
import { startTask } from '#domain/tasks/start-task';
import { sweep } from '#domain/tasks/sweep';
import { memoryWorld, video, type MemoryWorld } from '#test-support/memory-world';

/** Every task that ends is published once (webhooks), even when the first publication fails. */
let world: MemoryWorld;
beforeEach(() => {
  world = memoryWorld();
});

async function started() {
  const accountId = await world.newAccount(100);
  return { accountId, task: await startTask(world.deps, accountId, video()) };
}

it('publishes a completed task once, final, with its result', async () => {
  const { accountId, task } = await started();
  world.provider.onFetch(async () => ({ type: 'completed', outputUrls: ['https://provider.test/out.mp4'] }));
  world.advance(3_000);
  await getTask(world.deps, accountId, 'video', task.taskId);
  await world.copyQueue.drain();
  expect(world.published).toHaveLength(1);
  expect(world.published[0]).toMatchObject({ taskId: task.taskId, status: 'completed', outputUrls: [expect.any(String)] });
  await sweep(world.deps);
  expect(world.published).toHaveLength(1);
});

it('publishes a failed task and a canceled one once each', async () => {
  const failing = await started();
  world.provider.onFetch(async () => ({ type: 'failed', code: 'upstream_error', message: 'boom' }));
  world.advance(3_000);
  await getTask(world.deps, failing.accountId, 'video', failing.task.taskId);
  const canceling = await started();
  await Promise.allSettled([1, 2, 3].map(() => cancelTask(world.deps, canceling.accountId, 'video', canceling.task.taskId)));
  expect(world.published.map((task) => [task.taskId, task.status, task.error?.code])).toEqual([
    [failing.task.taskId, 'failed', 'upstream_error'],
    [canceling.task.taskId, 'failed', 'canceled'],
  ]);
});

it('keeps an ending whose publication failed in the outbox, and the sweeper publishes it', async () => {
  const { accountId, task } = await started();
  world.refuseEvents(true);
  await cancelTask(world.deps, accountId, 'video', task.taskId);
  expect(world.published).toHaveLength(0);
  world.refuseEvents(false);
  const report = await sweep(world.deps);
  expect(report.announced).toBe(1);
  expect(world.published.map((ended) => ended.taskId)).toEqual([task.taskId]);
  expect((await sweep(world.deps)).announced).toBe(0);
  expect(world.published).toHaveLength(1);
});
