import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { createS3Client } from '#adapters/s3/s3-client';
import type { LocalStack } from '#bin/local-stack/stack';
import { sweep, DELETING_GRACE_MS } from '#domain/tasks/sweep';
import { balanceAndLedger, del, get, listKeys, post, startTestApi, waitForFinal, type Json } from '#test-support/local-api';
import { newAccount } from '#test-support/accounts';

/**
 * DELETE /videos/{id} and /images/{id} (CONTRACT.md, "Retention and deletion") over real HTTP on
 * the local stack: DynamoDB Local, s3rver behind the /media route, the simulated provider. Every
 * reply is also checked against the OpenAPI document (local-api's `call`), the deleted variant included.
 */
jest.setTimeout(90_000);

let stack: LocalStack;

beforeAll(async () => {
  stack = await startTestApi({ SIM_DELAY_SECONDS: '0', PROVIDER: 'simulated' });
});
afterAll(async () => {
  await stack.stop();
});
afterEach(() => jest.restoreAllMocks());

const KINDS = {
  video: { start: '/generate', body: { prompt: 'a kite over the dunes', duration: 3, resolution: '480p' }, path: 'videos', id: 'video_id' },
  image: { start: '/generate-image', body: { prompt: 'a kite over the dunes' }, path: 'images', id: 'image_id' },
} as const;

async function started(kind: keyof typeof KINDS, key: string, prompt: string = KINDS[kind].body.prompt): Promise<string> {
  const reply = await post(stack, key, KINDS[kind].start, { ...KINDS[kind].body, prompt });
  expect(reply.status).toBe(200);
  return reply.body.data![KINDS[kind].id] as string;
}

async function final(kind: keyof typeof KINDS, key: string, prompt?: string): Promise<Json> {
  const id = await started(kind, key, prompt);
  const reply = await waitForFinal<Json>(stack, key, `/${KINDS[kind].path}/${id}`);
  expect(reply.body.data?.status).not.toBe('processing');
  return reply.body.data!;
}

const statusOf = async (url: string) => (await fetch(url)).status;
/** What the account's money looks like to itself: balance, ledger sum and its transactions. */
const money = async (accountId: string, key: string) => ({
  ...(await balanceAndLedger(stack, accountId)),
  transactions: (await get(stack, key, '/credits/transactions')).body.data,
});

describe('DELETE /videos/{video_id}', () => {
  it('removes the video and its thumbnail: the task stays with output_deleted_at and no URLs, old URLs 404, charges unchanged, a repeat answers the same', async () => {
    const { accountId, key } = await newAccount(stack);
    const video = await final('video', key);
    expect(video).toMatchObject({ status: 'completed', output_deleted_at: null });
    const urls = [video.video_url as string, video.thumbnail_url as string];
    expect(await Promise.all(urls.map(statusOf))).toEqual([200, 200]);
    expect(await listKeys(stack, `videos/${video.video_id}`)).toHaveLength(2);
    const before = await money(accountId, key);

    const deleted = await del(stack, key, `/videos/${video.video_id}`);
    expect(deleted.status).toBe(200);
    const view = deleted.body.data!;
    expect(view).toMatchObject({
      video_id: video.video_id,
      status: 'completed',
      credits_used: video.credits_used,
      credits_refunded: 0,
      completed_at: video.completed_at,
      thumbnail_url: null,
      output_deleted_at: expect.any(String),
    });
    expect(view).not.toHaveProperty('video_url');
    // Answered after the removal: the old URLs are gone already.
    expect(await Promise.all(urls.map(statusOf))).toEqual([404, 404]);
    expect(await listKeys(stack, `videos/${video.video_id}`)).toEqual([]);

    const again = await del(stack, key, `/videos/${video.video_id}`);
    expect([again.status, again.body.data]).toEqual([200, view]);
    expect((await get(stack, key, `/videos/${video.video_id}`)).body.data).toEqual(view);
    expect((await get(stack, key, '/videos')).body.data!.videos[0]).toEqual(view);
    expect(await money(accountId, key)).toEqual(before);
  });

  it('refuses a processing task with 409 task_not_final, and deletes nothing', async () => {
    const { key } = await newAccount(stack);
    const id = await started('video', key, 'sim:stall a kite');
    const reply = await del(stack, key, `/videos/${id}`);
    expect([reply.status, reply.body.error?.code]).toEqual([409, 'task_not_final']);
    expect((await get(stack, key, `/videos/${id}`)).body.data).toMatchObject({ status: 'processing', output_deleted_at: null });
  });

  it("answers 404 for another account's id, an unknown id and a video id on /images, touching nothing", async () => {
    const owner = await newAccount(stack);
    const other = await newAccount(stack);
    const video = await final('video', owner.key);
    for (const [key, path] of [
      [other.key, `/videos/${video.video_id}`],
      [owner.key, '/videos/vid_01M7ZNHRE3YZJA4Y3XQS4DQDGQ'],
      [owner.key, '/videos/not-an-id'],
      [owner.key, `/images/${video.video_id}`],
    ] as const) {
      const reply = await del(stack, key, path);
      expect([path, reply.status, reply.body.error?.code]).toEqual([path, 404, 'not_found']);
    }
    expect(await statusOf(video.video_url as string)).toBe(200);
    expect((await get(stack, owner.key, `/videos/${video.video_id}`)).body.data).toMatchObject({ output_deleted_at: null });
  });

  it('marks a failed task (nothing stored) with output_deleted_at, keeping its refund', async () => {
    const { accountId, key } = await newAccount(stack);
    const failed = await final('video', key, 'sim:fail a kite');
    expect(failed.status).toBe('failed');
    const before = await money(accountId, key);
    const reply = await del(stack, key, `/videos/${failed.video_id}`);
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({ status: 'failed', error: failed.error, credits_refunded: failed.credits_used, output_deleted_at: expect.any(String) });
    expect(await money(accountId, key)).toEqual(before);
  });

  it('leaves a deletion cut short `deleting` (the view already deleted); the sweeper finishes it and the old URL 404s', async () => {
    const { key } = await newAccount(stack);
    const video = await final('video', key);
    jest.spyOn(stack.context.storage, 'remove').mockRejectedValueOnce(new Error('S3 unreachable'));
    const cut = await del(stack, key, `/videos/${video.video_id}`);
    expect([cut.status, cut.body.error?.code]).toEqual([500, 'internal_error']);
    const view = (await get(stack, key, `/videos/${video.video_id}`)).body.data!;
    expect(view).toMatchObject({ status: 'completed', thumbnail_url: null, output_deleted_at: expect.any(String) });
    expect(view).not.toHaveProperty('video_url');
    // The sweeper, a minute on: it finishes what the request left.
    await sweep({ ...stack.context.lifecycle, clock: () => new Date(Date.now() + DELETING_GRACE_MS + 1_000) });
    expect(await statusOf(video.video_url as string)).toBe(404);
    expect(await statusOf(video.thumbnail_url as string)).toBe(404);
    expect(await listKeys(stack, `videos/${video.video_id}`)).toEqual([]);
    // Deleted at the first request's instant; a DELETE now answers the same.
    const again = await del(stack, key, `/videos/${video.video_id}`);
    expect([again.status, again.body.data?.output_deleted_at]).toEqual([200, view.output_deleted_at]);
  });
});

describe('caching of results', () => {
  it('stores outputs and thumbnails with Cache-Control: public, max-age=120, which the media route serves too', async () => {
    const { key } = await newAccount(stack);
    const [video, image] = await Promise.all([final('video', key), final('image', key)]);
    const s3 = createS3Client({ region: 'local', endpoint: stack.s3Endpoint });
    try {
      const keys = [`videos/${video.video_id}.mp4`, `videos/${video.video_id}.jpg`, ...(await listKeys(stack, `images/${image.image_id}`))];
      expect(keys).toHaveLength(3);
      for (const objectKey of keys) {
        const head = await s3.send(new HeadObjectCommand({ Bucket: stack.context.storage.bucket, Key: objectKey }));
        expect([objectKey, head.CacheControl]).toEqual([objectKey, 'public, max-age=120']);
      }
    } finally {
      s3.destroy();
    }
    for (const url of [video.video_url, video.thumbnail_url, ...image.image_urls] as string[]) {
      expect((await fetch(url)).headers.get('cache-control')).toBe('public, max-age=120');
    }
  });
});

describe('DELETE /images/{image_id}', () => {
  it('removes the images: no image_urls, old URLs 404, a repeat answers the same', async () => {
    const { key } = await newAccount(stack);
    const image = await final('image', key);
    const urls = image.image_urls as string[];
    expect(await Promise.all(urls.map(statusOf))).toEqual(urls.map(() => 200));
    const deleted = await del(stack, key, `/images/${image.image_id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toMatchObject({ status: 'completed', output_deleted_at: expect.any(String) });
    expect(deleted.body.data).not.toHaveProperty('image_urls');
    expect(await Promise.all(urls.map(statusOf))).toEqual(urls.map(() => 404));
    expect((await del(stack, key, `/images/${image.image_id}`)).body.data).toEqual(deleted.body.data);
  });
});
