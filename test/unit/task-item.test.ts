import { fromTaskItem, toTaskItem } from '#adapters/dynamodb/task-item';
import type { ImageTask, VideoTask } from '#domain/tasks/task';

const base = {
  taskId: 'vid_01M7ZNHRE3YZJA4Y3XQS4DQDGQ',
  partitionId: 'acc_1',
  seq: 3,
  phase: 'sending' as const,
  status: 'processing' as const,
  creditsUsed: 25,
  progress: 40,
  copyAttempts: 0,
  createdAt: '2026-11-21T17:00:00.000Z',
  updatedAt: '2026-11-21T17:00:00.000Z',
};
const video: VideoTask = {
  ...base,
  kind: 'video',
  params: { model: 'vid-1-5-pro', generationType: 'text_to_video', prompt: 'a fox', aspectRatio: '16:9', duration: 5, resolution: '720p' },
};
const image: ImageTask = {
  ...base,
  taskId: 'img_01M7ZP0E1WQ4R5N8B2C6D7F9GH',
  kind: 'image',
  phase: 'failed',
  status: 'failed',
  error: { code: 'content_rejected', message: 'no' },
  completedAt: '2026-11-21T17:00:09.000Z',
  provider: { name: 'simulated', jobId: 'job-1' },
  params: { model: 'image-2', prompt: 'a lighthouse', resolution: '2k', aspectRatio: '16:9', outputFormat: 'webp', images: ['https://x.test/a.png'] },
};

describe('task items', () => {
  it.each([
    ['video', video],
    ['image', image],
  ])('a %s task survives the round trip unchanged', (_kind, task) => {
    expect(fromTaskItem(JSON.parse(JSON.stringify(toTaskItem(task))))).toEqual(task);
  });

  it('keeps end_user and metadata as top-level attributes, absent when none (items written before them read unchanged)', () => {
    const attributed: VideoTask = { ...video, endUser: 'alice@example.com', metadata: { order_id: '1001', plan: 'pro' } };
    const item = toTaskItem(attributed);
    expect(item).toMatchObject({ end_user: 'alice@example.com', metadata: { order_id: '1001', plan: 'pro' } });
    expect(item.params).not.toHaveProperty('endUser');
    expect(fromTaskItem(JSON.parse(JSON.stringify(item)))).toEqual(attributed);
    const plain = JSON.parse(JSON.stringify(toTaskItem(video))) as Record<string, unknown>;
    expect(['end_user', 'metadata'].filter((field) => field in plain)).toEqual([]);
    expect(fromTaskItem(plain)).not.toHaveProperty('endUser');
    expect(fromTaskItem(plain)).not.toHaveProperty('metadata');
  });

  it.each([
    ['an end user that is not a string', { end_user: 7 }, /end_user/],
    ['metadata with a value that is not a string', { metadata: { a: 1 } }, /metadata/],
    ['an unknown kind', { kind: 'audio' }, /kind/],
    ['a missing id', { task_id: undefined }, /task_id/],
    ['an unknown status', { status: 'queued' }, /status/],
    ['a fractional position', { seq: 1.5 }, /seq/],
    ['video params on an image task', { kind: 'image' }, /params/],
    ['a model of the other kind', { params: { ...video.params, model: 'image-2' } }, /params/],
    ['an error without a known code', { error: { code: 'oops', message: 'x' } }, /error/],
    ['outputs that are not URLs', { output_urls: [1] }, /output_urls/],
  ])('refuses an item with %s', (_label, change, field) => {
    const item = { ...toTaskItem(video), ...change };
    expect(() => fromTaskItem(item)).toThrow(field);
  });
});
