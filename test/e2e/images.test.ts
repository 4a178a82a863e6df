import sharp from 'sharp';
import type { LocalStack } from '#bin/local-stack/stack';
import { createAccount, createApiKey } from '#domain/accounts/account-admin';
import type { SubscriptionStatus } from '#domain/accounts/account';
import { balanceAndLedger, call, startTestApi, waitForFinal } from '#test-support/local-api';

/** Image generation over real HTTP with the simulated provider rendering real files. */
jest.setTimeout(60_000);

let stack: LocalStack;
type Image = Record<string, any>;

beforeAll(async () => {
  stack = await startTestApi({ SIM_DELAY_SECONDS: '0', PROVIDER: 'simulated' });
});
afterAll(async () => {
  await stack.stop();
});

async function account(credits: number, paidAccess = true, subscriptionStatus: SubscriptionStatus = 'active') {
  const { account } = await createAccount(stack.context, { credits, paidAccess, subscriptionStatus });
  const key = await createApiKey(stack.context, account.accountId, { rateLimit: 1000 });
  return { accountId: account.accountId, key: key.apiKey };
}

const generateImage = (key: string, body: unknown, headers: Record<string, string> = {}) =>
  call<Image>(stack.baseUrl, '/generate-image', {
    method: 'POST',
    key,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });


describe('POST /generate-image', () => {
  it('renders a 2k 16:9 WebP of 2048x1152 and charges 5 credits', async () => {
    const { accountId, key } = await account(20);
    const started = await generateImage(key, { prompt: 'a lighthouse', resolution: '2k', aspect_ratio: '16:9', output_format: 'webp' });
    expect(started.status).toBe(200);
    expect(started.body.data).toMatchObject({
      status: 'processing',
      model: 'image-2',
      resolution: '2k',
      aspect_ratio: '16:9',
      output_format: 'webp',
      credits_used: 5,
    });
    expect(started.body.data?.image_id).toMatch(/^img_/);
    const final = await waitForFinal<Image>(stack, key, `/images/${started.body.data!.image_id}`);
    expect(final.body.data?.status).toBe('completed');
    const [url] = final.body.data!.image_urls as string[];
    const response = await fetch(url!);
    expect(response.headers.get('content-type')).toBe('image/webp');
    const metadata = await sharp(Buffer.from(await response.arrayBuffer())).metadata();
    expect(metadata).toMatchObject({ format: 'webp', width: 2048, height: 1152 });
    expect(await balanceAndLedger(stack, accountId)).toEqual({ balance: 15, ledger: 15 });
  });

  it('applies the defaults: image-2, 1k, 1:1, png', async () => {
    const { key } = await account(20);
    const started = await generateImage(key, { prompt: 'defaults' });
    expect(started.body.data).toMatchObject({ model: 'image-2', resolution: '1k', aspect_ratio: '1:1', output_format: 'png' });
    const final = await waitForFinal<Image>(stack, key, `/images/${started.body.data!.image_id}`);
    const bytes = Buffer.from(await (await fetch(final.body.data!.image_urls[0])).arrayBuffer());
    expect(await sharp(bytes).metadata()).toMatchObject({ format: 'png', width: 1024, height: 1024 });
  });

  it('uses reference images in edit mode', async () => {
    const { key } = await account(20);
    const red = await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 250, g: 0, b: 0 } } }).png().toBuffer();
    const referenceUrl = await stack.context.storage.put('uploads/test-red.png', red, 'image/png');
    const started = await generateImage(key, { prompt: 'make it pop', images: [referenceUrl], output_format: 'jpg' });
    expect(started.body.data?.images).toEqual([referenceUrl]);
    const final = await waitForFinal<Image>(stack, key, `/images/${started.body.data!.image_id}`);
    const bytes = Buffer.from(await (await fetch(final.body.data!.image_urls[0])).arrayBuffer());
    const { channels } = await sharp(bytes).stats();
    expect(channels[0]!.mean).toBeGreaterThan(channels[1]!.mean + 60);
  });

  it.each([
    ['no paid access', false, 'active'],
    ['a past-due subscription', true, 'past_due'],
    ['a canceled subscription', true, 'canceled'],
    ['no subscription', true, 'none'],
  ] as const)('refuses an account with %s: 403 paid_access_required, nothing charged', async (_, paid, subscription) => {
    const { accountId, key } = await account(20, paid, subscription);
    const reply = await generateImage(key, { prompt: 'x' });
    expect(reply.status).toBe(403);
    expect(reply.body.error?.code).toBe('paid_access_required');
    expect((await balanceAndLedger(stack, accountId)).balance).toBe(20);
  });

  it.each([
    [{ prompt: 'x', model: 'vid-1-5-pro' }, 'model'],
    [{ prompt: 'x', resolution: '8k' }, 'resolution'],
    [{ prompt: 'x', aspect_ratio: '2:1' }, 'aspect_ratio'],
    [{ prompt: 'x', output_format: 'gif' }, 'output_format'],
    [{ prompt: 'x', images: [] }, 'images'],
    [{ prompt: 'x', images: ['not a url'] }, 'images.0'],
    [{ prompt: 'x', images: Array.from({ length: 11 }, (_, i) => `https://example.com/${i}.png`) }, 'images'],
  ])('answers %j with 400 naming %s', async (body, field) => {
    const { key } = await account(20);
    const reply = await generateImage(key, body);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toEqual({ code: 'validation_error', message: expect.stringContaining(`${field}:`) });
  });

  it('refuses an images entry we would not fetch with 400 naming images.N, before any charge', async () => {
    const { accountId, key } = await account(20);
    const reply = await generateImage(key, {
      prompt: 'x',
      images: ['https://images.example.com/a.png', 'http://192.168.0.10/b.png', 'http://localhost/c.png'],
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toEqual({
      code: 'validation_error',
      message: expect.stringMatching(/^images\.1: we will not fetch this URL: .*not a public address.*; images\.2: /),
    });
    expect(await balanceAndLedger(stack, accountId)).toEqual({ balance: 20, ledger: 20 });
    expect((await call<Image>(stack.baseUrl, '/images', { key })).body.data?.pagination.total).toBe(0);
  });

  it('lets exactly K of K+M concurrent requests through', async () => {
    const K = 6;
    const M = 9;
    const { accountId, key } = await account(K * 5);
    const replies = await Promise.all(Array.from({ length: K + M }, () => generateImage(key, { prompt: 'race' })));
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(K);
    expect(replies.filter((reply) => reply.body.error?.code === 'insufficient_credits')).toHaveLength(M);
    expect(await balanceAndLedger(stack, accountId)).toEqual({ balance: 0, ledger: 0 });
  });

  it('answers every concurrent retry with the replay or 409, never 403, when the account can afford only one', async () => {
    const same = await account(5);
    const sameReplies = await Promise.all(
      Array.from({ length: 30 }, () => generateImage(same.key, { prompt: 'afford one' }, { 'Idempotency-Key': 'one-only' })),
    );
    expect(sameReplies.map((reply) => reply.status)).toEqual(Array(30).fill(200));
    expect(new Set(sameReplies.map((reply) => reply.body.data?.image_id)).size).toBe(1);
    expect(await balanceAndLedger(stack, same.accountId)).toEqual({ balance: 0, ledger: 0 });

    const mixed = await account(5);
    const mixedReplies = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        generateImage(mixed.key, { prompt: i % 2 ? 'body a' : 'body b' }, { 'Idempotency-Key': 'two-bodies' }),
      ),
    );
    const codes = mixedReplies.map((reply) => (reply.status === 200 ? reply.body.data?.prompt : reply.body.error?.code));
    const winner = codes.find((code) => code === 'body a' || code === 'body b');
    expect(codes.filter((code) => code === winner)).toHaveLength(15);
    expect(codes.filter((code) => code === 'idempotency_conflict')).toHaveLength(15);
    expect(await balanceAndLedger(stack, mixed.accountId)).toEqual({ balance: 0, ledger: 0 });
  });
});

describe('GET /images', () => {
  it('lists images apart from videos, newest first, and 404s across kinds and accounts', async () => {
    const { key } = await account(100);
    const first = await generateImage(key, { prompt: 'one' });
    await generateImage(key, { prompt: 'two' });
    const list = await call<{ images: Image[]; pagination: object }>(stack.baseUrl, '/images', { key });
    expect(list.body.data?.images.map((image) => image.prompt)).toEqual(['two', 'one']);
    expect(list.body.data?.pagination).toEqual({ page: 1, limit: 20, total: 2, total_pages: 1, has_more: false });
    const videos = await call<{ videos: unknown[] }>(stack.baseUrl, '/videos', { key });
    expect(videos.body.data?.videos).toEqual([]);
    const asVideo = await call(stack.baseUrl, `/videos/${first.body.data!.image_id}`, { key });
    expect(asVideo.status).toBe(404);
    const other = await account(0);
    expect((await call(stack.baseUrl, `/images/${first.body.data!.image_id}`, { key: other.key })).status).toBe(404);
  });
});
