import { deliveryFailedEvent, TASK_EVENT_TYPES, wants, type TaskEventType } from '#domain/webhooks/webhooks';
import { cancelTask } from '#domain/tasks/cancel-task';
import { getTask } from '#domain/tasks/get-task';
import { startTask } from '#domain/tasks/start-task';
import { sweep } from '#domain/tasks/sweep';
import { memoryWorld, video, type MemoryWorld } from '#test-support/memory-world';
import { renderEvent, upgradeEvent } from '#contract/events';
import { videoView } from '#contract/tasks';

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

describe('events as GET /events reads them', () => {
  it('echo the end user and metadata of the task, rendered once at its ending', async () => {
    const accountId = await world.newAccount(100);
    const task = await startTask(world.deps, accountId, { ...video(), endUser: 'alice', metadata: { order: '1001' } });
    await cancelTask(world.deps, accountId, 'video', task.taskId);
    const [ended] = world.published;
    const payload = renderEvent({ id: 'evt_1', type: 'video.failed', createdAt: ended!.updatedAt, livemode: true, subject: { kind: 'task', task: ended! } });
    expect(JSON.parse(payload).data).toMatchObject({ end_user: 'alice', metadata: { order: '1001' }, credits_refunded: 25 });
    // Today's payloads are listed as stored.
    expect(upgradeEvent(payload)).toEqual(JSON.parse(payload));
  });

  it('upgrades a payload stored before end_user, metadata and credits_refunded existed, with what it would have carried', async () => {
    const accountId = await world.newAccount(100);
    const task = await startTask(world.deps, accountId, video());
    await cancelTask(world.deps, accountId, 'video', task.taskId);
    const { end_user: _e, metadata: _m, credits_refunded: _r, ...old } = videoView(world.published[0]! as Parameters<typeof videoView>[0]);
    const stored = JSON.stringify({ id: 'evt_1', type: 'video.failed', created_at: old.updated_at, livemode: true, data: old });
    expect(upgradeEvent(stored).data).toEqual({ ...old, end_user: null, metadata: {}, credits_refunded: 25 });
    const completed = JSON.stringify({ id: 'evt_2', type: 'video.completed', created_at: old.updated_at, livemode: true, data: { ...old, status: 'completed' } });
    expect(upgradeEvent(completed).data).toMatchObject({ end_user: null, metadata: {}, credits_refunded: 0 });
  });
});

describe('video.delivery_failed and image.delivery_failed (CONTRACT.md, "Your storage")', () => {
  it('go to endpoints that list them, and to those made for every type before they existed (exactly the four old ones)', () => {
    expect(TASK_EVENT_TYPES).toEqual(expect.arrayContaining(['video.delivery_failed', 'image.delivery_failed']));
    const oldDefault = { events: ['video.completed', 'video.failed', 'image.completed', 'image.failed'] as TaskEventType[] };
    expect(wants(oldDefault, 'video.delivery_failed')).toBe(true);
    expect(wants(oldDefault, 'image.delivery_failed')).toBe(true);
    expect(wants({ events: ['video.completed', 'video.failed'] }, 'video.delivery_failed')).toBe(false);
    expect(wants({ events: ['image.delivery_failed'] }, 'image.delivery_failed')).toBe(true);
    expect(wants({ events: ['image.delivery_failed'] }, 'video.delivery_failed')).toBe(false);
  });

  it('the event is the view at the give-up, under the id the give-up recorded', async () => {
    const { accountId, task } = await started();
    const failedAt = '2026-03-01T12:10:00.000Z';
    const given = { ...task, status: 'completed' as const, phase: 'completed' as const, updatedAt: failedAt, delivery: { status: 'failed' as const, attempts: 1, lastError: 'HTTP 403 (AccessDenied)', eventId: 'evt_01M8F0FKJ1DHK42H11R5PMVE8K' } };
    const event = deliveryFailedEvent(given);
    expect(event).toMatchObject({ id: 'evt_01M8F0FKJ1DHK42H11R5PMVE8K', type: 'video.delivery_failed', createdAt: failedAt });
    const body = JSON.parse(renderEvent(event)) as { type: string; data: { video_id: string; delivery: unknown } };
    expect(body).toMatchObject({ type: 'video.delivery_failed', data: { video_id: task.taskId, delivery: { status: 'failed', attempts: 1, last_error: 'HTTP 403 (AccessDenied)', delivered_at: null } } });
    expect(accountId).toBeDefined();
  });
});
