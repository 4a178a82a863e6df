import { createHash } from 'node:crypto';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { createS3Client } from '#adapters/s3/s3-client';
import type { LocalStack } from '#bin/local-stack/stack';
import { newAccount } from '#test-support/accounts';
import { type FakeStore, startFakeStore } from '#test-support/fake-store';
import { get, post, startTestApi, waitForFinal, type Json } from '#test-support/local-api';
import { pollUntil } from '#test-support/wait';

/**
 * Delivery to the customer's storage (CONTRACT.md, "Your storage") on the local stack: a real
 * presigned PUT into a second s3rver bucket, and the fake store's scripted answers. The local
 * retry schedule is a second between attempts; the tests wait on conditions, never sleep.
 */
jest.setTimeout(90_000);

let stack: LocalStack;
const s3 = () => createS3Client({ region: 'local', endpoint: process.env.TEST_S3_ENDPOINT! });
const CUSTOMER_BUCKET = `customer-${Date.now().toString(36)}`;

beforeAll(async () => {
  stack = await startTestApi({ SIM_DELAY_SECONDS: '0', PROVIDER: 'simulated', DELIVERY_RETRY_SCHEDULE: '1,1,1' });
  const client = s3();
  await client.send(new CreateBucketCommand({ Bucket: CUSTOMER_BUCKET }));
  client.destroy();
});
afterAll(async () => {
  await stack.stop();
});

/** A presigned PUT URL into the customer's bucket (as their S3 SDK makes one). */
async function presignedPut(key: string): Promise<string> {
  const client = s3();
  try {
    return await getSignedUrl(client, new PutObjectCommand({ Bucket: CUSTOMER_BUCKET, Key: key }), { expiresIn: 7200 });
  } finally {
    client.destroy();
  }
}

async function customerObject(key: string): Promise<Buffer> {
  const client = s3();
  try {
    const { Body } = await client.send(new GetObjectCommand({ Bucket: CUSTOMER_BUCKET, Key: key }));
    return Buffer.from(await Body!.transformToByteArray());
  } finally {
    client.destroy();
  }
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const download = async (url: string) => Buffer.from(await (await fetch(url)).arrayBuffer());

/** Starts a video with `body`'s extras and waits for its delivery to end; the final view. */
async function deliveredVideo(key: string, extras: Json): Promise<Json> {
  const started = await post(stack, key, '/generate', { prompt: 'a cat surfing', ...extras });
  expect(started.status).toBe(200);
  const id = started.body.data!.video_id as string;
  expect(started.body.data!.delivery).toEqual({ status: 'pending', attempts: 0, last_error: null, delivered_at: null });
  const final = await waitForFinal<Json>(stack, key, `/videos/${id}`);
  expect(final.body.data!.status).toBe('completed');
  return pollUntil(
    async () => {
      const view = (await get(stack, key, `/videos/${id}`)).body.data!;
      return view.delivery?.status !== 'pending' && view;
    },
    { timeoutMs: 45_000, what: `the delivery of ${id} to end` },
  );
}

describe('output_destination', () => {
  it('PUTs the video and its thumbnail into the customer bucket through presigned URLs, byte for byte', async () => {
    const { key } = await newAccount(stack);
    const view = await deliveredVideo(key, {
      output_destination: { url: await presignedPut('renders/cat.mp4') },
      thumbnail_destination: { url: await presignedPut('renders/cat.jpg') },
    });
    expect(view.delivery).toMatchObject({ status: 'delivered', attempts: 1, last_error: null, delivered_at: expect.any(String) });
    expect(sha256(await customerObject('renders/cat.mp4'))).toBe(sha256(await download(view.video_url)));
    expect(view.thumbnail_url).toEqual(expect.any(String));
    expect(sha256(await customerObject('renders/cat.jpg'))).toBe(sha256(await download(view.thumbnail_url)));
    expect(JSON.stringify(view)).not.toContain('X-Amz-Signature');
  });

  it('refuses a private destination with a 400 naming the field, charging nothing', async () => {
    const { key } = await newAccount(stack, { credits: 100 });
    const reply = await post(stack, key, '/generate', { prompt: 'a cat', output_destination: { url: 'https://10.1.2.3/out.mp4' } });
    expect([reply.status, reply.body.error?.code]).toEqual([400, 'validation_error']);
    expect(reply.body.error?.message).toMatch(/^output_destination\.url: /);
    expect((await get(stack, key, '/credits')).body.data).toMatchObject({ credits: 100 });
  });
});

describe('a store that fails', () => {
  let store: FakeStore;
  afterEach(async () => store?.close());

  it('500, 500, then 200: delivered on the third attempt, the same bytes each time', async () => {
    store = await startFakeStore({ answers: ['500', '500'] });
    const { key } = await newAccount(stack);
    const view = await deliveredVideo(key, { output_destination: { url: `${store.origin}/a.mp4` } });
    expect(view.delivery).toMatchObject({ status: 'delivered', attempts: 3, last_error: null });
    const puts = store.putsTo('/a.mp4');
    expect(puts.map((put) => put.status)).toEqual([500, 500, 200]);
    expect(new Set(puts.map((put) => put.headers['content-length'])).size).toBe(1);
    expect(sha256(store.object('/a.mp4')!)).toBe(sha256(await download(view.video_url)));
  });

  it('403: failed after one attempt, one video.delivery_failed event in the feed, credits as charged', async () => {
    store = await startFakeStore({ answers: ['403:AccessDenied'] });
    const { key } = await newAccount(stack, { credits: 1000 });
    const view = await deliveredVideo(key, { output_destination: { url: `${store.origin}/b.mp4` } });
    expect(view.delivery).toEqual({ status: 'failed', attempts: 1, last_error: 'HTTP 403 (AccessDenied)', delivered_at: null });
    expect(store.putsTo('/b.mp4')).toHaveLength(1);
    const events = await pollUntil(
      async () => {
        const feed = ((await get(stack, key, '/events')).body.data!.events as Json[]).filter((event) => event.type === 'video.delivery_failed');
        return feed.length > 0 && feed;
      },
      { what: 'the delivery_failed event' },
    );
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ video_id: view.video_id, status: 'completed', delivery: { status: 'failed', attempts: 1 } });
    expect((await get(stack, key, '/credits')).body.data).toMatchObject({ credits: 1000 - view.credits_used });
  });
});
