import { ValidationError } from '#domain/shared/errors';
import { startTask } from '#domain/tasks/start-task';
import { quoteStart } from '#domain/tasks/quote';
import { videoView } from '#contract/tasks';
import { memoryWorld, video, type MemoryWorld } from '#test-support/memory-world';

/** A start naming an output destination (CONTRACT.md, "Your storage"), on the in-memory stores. */
let world: MemoryWorld;
beforeEach(() => {
  world = memoryWorld();
});

const PRESIGNED = 'https://bucket.s3.eu-west-1.amazonaws.com/out/cat.mp4?X-Amz-Signature=secret-signature';

it('stores the destination with the task and shows delivery pending, never the URL', async () => {
  const accountId = await world.newAccount(100);
  const started = await startTask(world.deps, accountId, { ...video(), destination: { output: { url: PRESIGNED, headers: { 'x-ms-blob-type': 'BlockBlob' } } }, keepOutput: false });

  const stored = (await world.stores.tasks.get(accountId, started.taskId))!;
  expect(stored).toMatchObject({ destination: { output: { url: PRESIGNED, headers: { 'x-ms-blob-type': 'BlockBlob' } } }, keepOutput: false, delivery: { status: 'pending', attempts: 0 } });
  const view = videoView(started as Parameters<typeof videoView>[0]);
  expect(view.delivery).toEqual({ status: 'pending', attempts: 0, last_error: null, delivered_at: null });
  expect(JSON.stringify(view)).not.toContain('secret-signature');
});

it('a task without a destination has delivery null', async () => {
  const accountId = await world.newAccount(100);
  const started = await startTask(world.deps, accountId, video());
  expect(videoView(started as Parameters<typeof videoView>[0]).delivery).toBeNull();
});

it('refuses a private destination with a 400 naming the field before any charge; the quote says the same', async () => {
  const accountId = await world.newAccount(100);
  const before = await world.money(accountId);
  const request = { ...video(), destination: { output: { url: 'https://10.0.0.7/a.mp4', headers: {} } } };

  const refused = await startTask(world.deps, accountId, request).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(ValidationError);
  expect(refused).toMatchObject({ field: 'output_destination.url' });
  await expect(quoteStart(world.deps, accountId, request)).rejects.toMatchObject({ field: 'output_destination.url' });
  expect(await world.money(accountId)).toEqual(before);
});
