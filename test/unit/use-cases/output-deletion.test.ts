import { NotFoundError, TaskNotFinalError } from '#domain/shared/errors';
import { getTask } from '#domain/tasks/get-task';
import { deleteTaskOutputs } from '#domain/tasks/output-deletion';
import { startTask } from '#domain/tasks/start-task';
import { DELETING_GRACE_MS, sweep } from '#domain/tasks/sweep';
import type { Task } from '#domain/tasks/task';
import { videoView } from '#contract/tasks';
import { image, memoryWorld, video, type MemoryWorld, deliveringVideo } from '#test-support/memory-world';

/** DELETE of a task's outputs (design-35 §4) on the in-memory stores, with a scripted provider. */
let world: MemoryWorld;
beforeEach(() => {
  world = memoryWorld();
  jest.spyOn(console, 'warn').mockImplementation(() => {});
});
afterEach(() => jest.restoreAllMocks());

/** A task of `kind` completed through the provider and the copy queue. */
async function completed(kind: 'video' | 'image' = 'video'): Promise<{ accountId: string; task: Task }> {
  const accountId = await world.newAccount(100, { paidAccess: true, subscriptionStatus: 'active' });
  const started = await startTask(world.deps, accountId, kind === 'video' ? video() : image());
  world.provider.onFetch(async () => ({ type: 'completed', outputUrls: [`https://provider.test/${started.taskId}.out`] }));
  world.advance(3_000);
  await getTask(world.deps, accountId, kind, started.taskId);
  await world.copyQueue.drain();
  const task = (await world.stores.tasks.get(accountId, started.taskId))!;
  expect(task.phase).toBe('completed');
  return { accountId, task };
}

const keysOf = (taskId: string) => [...world.media.objects.keys()].filter((key) => key.includes(taskId));

describe('deleting outputs', () => {
  it('removes the objects, keeps the task with output_deleted_at and no URLs, charges nothing back; a repeat answers the same', async () => {
    const { accountId, task } = await completed();
    expect(keysOf(task.taskId)).toEqual([`videos/${task.taskId}.mp4`]);
    const before = await world.money(accountId);
    world.advance(60_000);
    const deleted = await deleteTaskOutputs(world.deps, accountId, 'video', task.taskId);
    expect(deleted).toMatchObject({ phase: 'output_deleted', status: 'completed', outputDeletedAt: world.now().toISOString(), completedAt: task.completedAt });
    expect(deleted.outputUrls).toBeUndefined();
    expect(keysOf(task.taskId)).toEqual([]);
    const view = videoView(deleted);
    expect(view).toMatchObject({ status: 'completed', output_deleted_at: world.now().toISOString(), thumbnail_url: null });
    expect(view).not.toHaveProperty('video_url');
    world.advance(5_000);
    expect(await deleteTaskOutputs(world.deps, accountId, 'video', task.taskId)).toEqual(deleted);
    expect(await world.money(accountId)).toEqual(before);
  });

  it('deletes an image task\'s images', async () => {
    const { accountId, task } = await completed('image');
    expect(keysOf(task.taskId)).toHaveLength(1);
    await deleteTaskOutputs(world.deps, accountId, 'image', task.taskId);
    expect(keysOf(task.taskId)).toEqual([]);
  });

  it('refuses a processing task (task_not_final); another account\'s, unknown and other-kind ids are not found', async () => {
    const accountId = await world.newAccount(100);
    const processing = await startTask(world.deps, accountId, video());
    await expect(deleteTaskOutputs(world.deps, accountId, 'video', processing.taskId)).rejects.toBeInstanceOf(TaskNotFinalError);
    const other = await world.newAccount(100);
    await expect(deleteTaskOutputs(world.deps, other, 'video', processing.taskId)).rejects.toBeInstanceOf(NotFoundError);
    await expect(deleteTaskOutputs(world.deps, accountId, 'image', processing.taskId)).rejects.toBeInstanceOf(NotFoundError);
    await expect(deleteTaskOutputs(world.deps, accountId, 'video', 'vid_01M7ZNHRE3YZJA4Y3XQS4DQDGQ')).rejects.toBeInstanceOf(NotFoundError);
    expect((await world.stores.tasks.get(accountId, processing.taskId))!.phase).not.toBe('deleting');
  });

  it('refuses a completed task still being delivered to its destination (task_not_final, saying so), and deletes nothing', async () => {
    const accountId = await world.newAccount(100);
    const started = await deliveringVideo(world, accountId);
    expect(await world.stores.tasks.get(accountId, started.taskId)).toMatchObject({ phase: 'delivering', status: 'completed' });
    const refused = deleteTaskOutputs(world.deps, accountId, 'video', started.taskId);
    await expect(refused).rejects.toBeInstanceOf(TaskNotFinalError);
    await expect(refused).rejects.toThrow(/being delivered to your storage.*delivery\.status/);
    expect(keysOf(started.taskId)).toEqual([`videos/${started.taskId}.mp4`]);
    expect((await world.stores.tasks.get(accountId, started.taskId))!.phase).toBe('delivering');
  });

  it('marks a failed task (nothing stored) once, keeping its refund', async () => {
    const accountId = await world.newAccount(100);
    world.provider.onFetch(async () => ({ type: 'failed', code: 'upstream_error', message: 'boom' }));
    const started = await startTask(world.deps, accountId, video());
    world.advance(3_000);
    expect((await getTask(world.deps, accountId, 'video', started.taskId)).status).toBe('failed');
    const first = await deleteTaskOutputs(world.deps, accountId, 'video', started.taskId);
    expect(first).toMatchObject({ phase: 'failed', outputDeletedAt: world.now().toISOString() });
    world.advance(1_000);
    expect(await deleteTaskOutputs(world.deps, accountId, 'video', started.taskId)).toEqual(first);
    expect(await world.money(accountId)).toMatchObject({ balance: 100, ledger: 100 });
  });

  it('announces a completion whose events were not published yet before it moves on, so none is lost', async () => {
    world.refuseEvents(true);
    const { accountId, task } = await completed();
    expect(task.unannounced).toBe(true);
    world.refuseEvents(false);
    const deleted = await deleteTaskOutputs(world.deps, accountId, 'video', task.taskId);
    expect(deleted.phase).toBe('output_deleted');
    expect(world.published.filter((published) => published.taskId === task.taskId).map((published) => published.phase)).toEqual(['completed']);
  });

  it('leaves a task whose removal failed `deleting` (its view already deleted); the sweeper finishes it after the grace', async () => {
    const { accountId, task } = await completed();
    jest.spyOn(world.media, 'remove').mockRejectedValueOnce(new Error('S3 unavailable'));
    await expect(deleteTaskOutputs(world.deps, accountId, 'video', task.taskId)).rejects.toThrow('S3 unavailable');
    const deleting = (await world.stores.tasks.get(accountId, task.taskId))!;
    expect(deleting.phase).toBe('deleting');
    expect(videoView(deleting as never)).not.toHaveProperty('video_url');
    expect((await sweep(world.deps)).purged).toBe(0);
    world.advance(DELETING_GRACE_MS + 1);
    expect((await sweep(world.deps)).purged).toBe(1);
    expect(await world.stores.tasks.get(accountId, task.taskId)).toMatchObject({ phase: 'output_deleted' });
    expect(keysOf(task.taskId)).toEqual([]);
  });
});
