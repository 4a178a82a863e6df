import { getTask } from '#domain/tasks/get-task';
import { DEFAULT_DELIVERY_SCHEDULE, deliverOutputs, type DeliveryDeps, type PutOutcome } from '#domain/tasks/delivery';
import type { Destination } from '#domain/tasks/destinations';
import { startTask } from '#domain/tasks/start-task';
import type { Task } from '#domain/tasks/task';
import { SILENT_TELEMETRY } from '#domain/shared/telemetry';
import { memoryWorld, video, type MemoryWorld } from '#test-support/memory-world';

/** The delivery worker (design-35 §3) on the in-memory stores, with a scripted store answering each PUT. */
let world: MemoryWorld;
/** Each PUT made: the destination's URL and our object's key. */
let puts: { url: string; key: string }[];
let answers: PutOutcome[];
let failedEvents: Task[];
let deps: DeliveryDeps;

beforeEach(() => {
  world = memoryWorld();
  puts = [];
  answers = [];
  failedEvents = [];
  deps = {
    tasks: world.stores.tasks,
    media: world.media,
    sender: {
      send: async (destination: Destination, key: string) => {
        puts.push({ url: destination.url, key });
        return answers.shift() ?? { type: 'delivered' };
      },
    },
    queue: { send: async (message, options) => void world.deliveries.push({ message, delaySeconds: options?.delaySeconds ?? 0 }) },
    events: {
      ended: async (task) => void world.published.push(task),
      deliveryFailed: async (task) => void failedEvents.push(task),
    },
    clock: () => world.now(),
    telemetry: SILENT_TELEMETRY,
    retrySchedule: DEFAULT_DELIVERY_SCHEDULE,
  };
});

const OUT = 'https://store.test/out.mp4?X-Amz-Signature=s';
const THUMB = 'https://store.test/out.jpg?X-Amz-Signature=t';

/** A video task started with a destination and completed: `delivering`, its first message queued. */
async function completedForDelivery(options: { thumbnail?: boolean; keepOutput?: false } = {}) {
  const accountId = await world.newAccount(100);
  const started = await startTask(world.deps, accountId, {
    ...video(),
    destination: { output: { url: OUT, headers: {} }, ...(options.thumbnail && { thumbnail: { url: THUMB, headers: {} } }) },
    ...(options.keepOutput === false && { keepOutput: false as const }),
  });
  world.provider.onFetch(async () => ({ type: 'completed', outputUrls: [`https://provider.test/${started.taskId}.out`] }));
  world.advance(3_000);
  await getTask(world.deps, accountId, 'video', started.taskId);
  await world.copyQueue.drain();
  const task = (await world.stores.tasks.get(accountId, started.taskId))!;
  expect(task).toMatchObject({ phase: 'delivering', status: 'completed', delivery: { status: 'pending', attempts: 0 } });
  return { accountId, task, money: await world.money(accountId) };
}

/** Hands the queued delivery messages to the worker once, moving the clock by each one's delay first. */
async function deliverQueued(): Promise<number> {
  const batch = world.deliveries.splice(0);
  for (const { message, delaySeconds } of batch) {
    world.advance(delaySeconds * 1000);
    await deliverOutputs(deps, message);
  }
  return batch.length;
}

const stored = async (accountId: string, taskId: string) => (await world.stores.tasks.get(accountId, taskId))!;

it('completes first (announced, charged) and queues the delivery; one PUT of our copy delivers it', async () => {
  const { accountId, task, money } = await completedForDelivery();
  expect(world.published.map((ended) => ended.taskId)).toEqual([task.taskId]);
  expect(world.deliveries).toHaveLength(1);

  await deliverQueued();

  expect(puts).toEqual([{ url: OUT, key: `videos/${task.taskId}.mp4` }]);
  const after = await stored(accountId, task.taskId);
  expect(after).toMatchObject({ phase: 'completed', delivery: { status: 'delivered', attempts: 1, deliveredAt: world.now().toISOString() } });
  expect(after.destination).toBeUndefined();
  expect(after.outputUrls).toEqual(task.outputUrls);
  expect(await world.money(accountId)).toEqual(money);
});

it('retries 5xx, timeouts and connection errors on the schedule, then delivers: attempts and last_error recorded', async () => {
  const { accountId, task } = await completedForDelivery();
  answers = [
    { type: 'failed', retryable: true, reason: 'HTTP 500' },
    { type: 'failed', retryable: true, reason: 'timeout: no progress for 30 s' },
  ];
  await deliverQueued();
  expect(await stored(accountId, task.taskId)).toMatchObject({ phase: 'delivering', delivery: { status: 'pending', attempts: 1, lastError: 'HTTP 500' } });
  expect(world.deliveries.map((queued) => queued.delaySeconds)).toEqual([DEFAULT_DELIVERY_SCHEDULE[0]]);
  await deliverQueued();
  expect(world.deliveries.map((queued) => queued.delaySeconds)).toEqual([DEFAULT_DELIVERY_SCHEDULE[1]]);
  await deliverQueued();
  // The last attempt delivered: no error to show any more.
  expect((await stored(accountId, task.taskId)).delivery).toEqual({ status: 'delivered', attempts: 3, deliveredAt: world.now().toISOString() });
  expect(failedEvents).toEqual([]);
});

it('gives up at once on a refusal (a 403): failed, one attempt, one delivery_failed event, charges unchanged', async () => {
  const { accountId, task, money } = await completedForDelivery();
  answers = [{ type: 'failed', retryable: false, reason: 'HTTP 403 (AccessDenied)' }];
  await deliverQueued();
  const after = await stored(accountId, task.taskId);
  expect(after).toMatchObject({ phase: 'completed', delivery: { status: 'failed', attempts: 1, lastError: 'HTTP 403 (AccessDenied)' } });
  expect(after.delivery?.eventOwed).toBeUndefined();
  expect(after.destination).toBeUndefined();
  expect(failedEvents.map((failed) => [failed.taskId, failed.delivery?.status])).toEqual([[task.taskId, 'failed']]);
  expect(world.deliveries).toEqual([]);
  expect(await world.money(accountId)).toEqual(money);
});

it('retries for at least an hour before giving up, honouring a longer Retry-After', async () => {
  expect(DEFAULT_DELIVERY_SCHEDULE.reduce((sum, seconds) => sum + seconds, 0)).toBeGreaterThanOrEqual(3600);
  const { accountId, task } = await completedForDelivery();
  const start = world.now().getTime();
  answers = [{ type: 'failed', retryable: true, reason: 'HTTP 503 (SlowDown)', retryAfterSeconds: 120 }, ...Array.from({ length: 20 }, () => ({ type: 'failed' as const, retryable: true, reason: 'HTTP 500' }))];
  await deliverQueued();
  expect(world.deliveries[0]!.delaySeconds).toBe(120);
  while ((await deliverQueued()) > 0);
  const after = await stored(accountId, task.taskId);
  expect(after.delivery).toMatchObject({ status: 'failed', attempts: DEFAULT_DELIVERY_SCHEDULE.length + 1, lastError: 'HTTP 500' });
  expect(world.now().getTime() - start).toBeGreaterThanOrEqual(3600_000);
  expect(failedEvents).toHaveLength(1);
});

it('two copies of one message make one attempt; an early message goes back for the rest of its wait', async () => {
  const { accountId, task } = await completedForDelivery();
  answers = [{ type: 'failed', retryable: true, reason: 'HTTP 500' }];
  const [message] = world.deliveries.splice(0);
  await Promise.all([deliverOutputs(deps, message!.message), deliverOutputs(deps, message!.message)]);
  expect(puts).toHaveLength(1);
  expect((await stored(accountId, task.taskId)).delivery?.attempts).toBe(1);
  // The retry message delivered 4 s early: re-queued for the 6 s left, no PUT.
  world.deliveries.splice(0);
  world.advance(4_000);
  await deliverOutputs(deps, { accountId, taskId: task.taskId });
  expect(puts).toHaveLength(1);
  expect(world.deliveries.map((queued) => queued.delaySeconds)).toEqual([6]);
});

it('sends the thumbnail after the video; a retry sends only what was not delivered', async () => {
  // This world's poster maker: a thumbnail beside the video, as ffmpeg's would be.
  world.deps.thumbnails = {
    firstFrame: async (videoKey, key) => {
      world.media.objects.set(key, { sourceUrl: videoKey, contentType: 'image/jpeg' });
      return `https://media.test/${key}`;
    },
  };
  const { accountId, task } = await completedForDelivery({ thumbnail: true });
  expect(task.thumbnailUrl).toBe(`https://media.test/videos/${task.taskId}.jpg`);
  answers = [{ type: 'delivered' }, { type: 'failed', retryable: true, reason: 'HTTP 500' }];
  await deliverQueued();
  await deliverQueued();
  expect(puts).toEqual([
    { url: OUT, key: `videos/${task.taskId}.mp4` },
    { url: THUMB, key: `videos/${task.taskId}.jpg` },
    { url: THUMB, key: `videos/${task.taskId}.jpg` },
  ]);
  expect((await stored(accountId, task.taskId)).delivery).toMatchObject({ status: 'delivered', attempts: 2 });
});

it('keep_output false: our copy is deleted only after a successful delivery', async () => {
  const { accountId, task } = await completedForDelivery({ keepOutput: false });
  const key = `videos/${task.taskId}.mp4`;
  answers = [{ type: 'failed', retryable: true, reason: 'HTTP 500' }];
  await deliverQueued();
  expect(world.media.objects.has(key)).toBe(true);
  await deliverQueued();
  const after = await stored(accountId, task.taskId);
  expect(after).toMatchObject({ phase: 'output_deleted', outputDeletedAt: expect.any(String), delivery: { status: 'delivered', attempts: 2 } });
  expect(world.media.objects.has(key)).toBe(false);
});

it('keep_output false and a failed delivery: our copy stays', async () => {
  const { accountId, task } = await completedForDelivery({ keepOutput: false });
  answers = [{ type: 'failed', retryable: false, reason: 'HTTP 404 (NoSuchBucket)' }];
  await deliverQueued();
  expect(await stored(accountId, task.taskId)).toMatchObject({ phase: 'completed', delivery: { status: 'failed' } });
  expect(world.media.objects.has(`videos/${task.taskId}.mp4`)).toBe(true);
});

it('a give-up whose event could not be published publishes it on the next message', async () => {
  const { accountId, task } = await completedForDelivery();
  answers = [{ type: 'failed', retryable: false, reason: 'HTTP 403 (AccessDenied)' }];
  deps.events.deliveryFailed = async () => {
    throw new Error('queue unreachable');
  };
  const [message] = world.deliveries.splice(0);
  await expect(deliverOutputs(deps, message!.message)).rejects.toThrow('queue unreachable');
  expect((await stored(accountId, task.taskId)).delivery).toMatchObject({ status: 'failed', eventOwed: true });
  deps.events.deliveryFailed = async (failed) => void failedEvents.push(failed);
  await deliverOutputs(deps, message!.message);
  expect(failedEvents).toHaveLength(1);
  expect((await stored(accountId, task.taskId)).delivery?.eventOwed).toBeUndefined();
  expect(puts).toHaveLength(1);
});
