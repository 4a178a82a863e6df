import http from 'node:http';
import sharp from 'sharp';
import { inspectMp4 } from '#test-support/mp4';
import type { LocalStack } from '#bin/local-stack/stack';
import { balanceAndLedger, call, startTestApi, waitForFinal } from '#test-support/local-api';
import { newAccount } from '#test-support/accounts';

/**
 * The video lifecycle over real HTTP on the local stack, with the simulated provider
 * (no delay) rendering real MP4s into s3rver.
 */
jest.setTimeout(60_000);

let stack: LocalStack;
type Video = Record<string, any>;

beforeAll(async () => {
  stack = await startTestApi({ SIM_DELAY_SECONDS: '0', PROVIDER: 'simulated' });
});
afterAll(async () => {
  await stack.stop();
});

const generate = (key: string, body: unknown, headers: Record<string, string> = {}) =>
  call<Video>(stack.baseUrl, '/generate', {
    method: 'POST',
    key,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('generate, poll, download', () => {
  it('produces a real MP4 at our own URL and charges the listed price', async () => {
    const { accountId, key } = await newAccount(stack, { credits: 100, paid: false });
    const started = await generate(key, { prompt: 'a paper boat on a pond', duration: 3, resolution: '480p' });
    expect(started.status).toBe(200);
    expect(started.body.data).toMatchObject({
      status: 'processing',
      model: 'vid-1-5-pro',
      generation_type: 'text_to_video',
      duration: 3,
      resolution: '480p',
      aspect_ratio: '16:9',
      credits_used: 15,
    });
    expect(started.body.data?.video_id).toMatch(/^vid_[0-9A-Z]{26}$/);
    expect(started.body.data).not.toHaveProperty('video_url');

    const final = await waitForFinal<Video>(stack, key, `/videos/${started.body.data!.video_id}`);
    expect(final.body.data).toMatchObject({ status: 'completed', completed_at: expect.any(String) });
    const videoUrl: string = final.body.data!.video_url;
    expect(videoUrl.startsWith(`http://127.0.0.1:${stack.apiPort}/media/videos/`)).toBe(true);

    const media = await fetch(videoUrl); // no key needed
    expect(media.status).toBe(200);
    expect(media.headers.get('content-type')).toBe('video/mp4');
    const bytes = Buffer.from(await media.arrayBuffer());
    expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
    expect(bytes.length).toBeGreaterThan(10_000);
    expect(await balanceAndLedger(stack, accountId)).toEqual({ balance: 85, ledger: 85 });

    // Its poster: the first frame as a JPEG of the video's own size, next to it, no key needed.
    expect(started.body.data!.thumbnail_url).toBeNull();
    const thumbnailUrl: string = final.body.data!.thumbnail_url;
    expect(thumbnailUrl).toBe(videoUrl.replace(/\.mp4$/, '.jpg'));
    const poster = await fetch(thumbnailUrl);
    expect([poster.status, poster.headers.get('content-type')]).toEqual([200, 'image/jpeg']);
    const jpeg = Buffer.from(await poster.arrayBuffer());
    expect([...jpeg.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    const { width, height } = inspectMp4(bytes);
    expect([width, height]).toEqual([854, 480]);
    expect(await sharp(jpeg).metadata()).toMatchObject({ format: 'jpeg', width, height });
  });

  it('ends sim:fail as failed with an error and gives the credits back', async () => {
    const { accountId, key } = await newAccount(stack, { credits: 100, paid: false });
    const started = await generate(key, { prompt: 'sim:fail please', duration: 4 });
    expect(started.body.data?.credits_used).toBe(20);
    // With no delay the provider's failure callback may already have refunded it: the balance
    // is not asserted here, the ledger below shows the charge and its one refund.
    const videoId = started.body.data!.video_id;
    const final = await waitForFinal<Video>(stack, key, `/videos/${videoId}`);
    expect(final.body.data).toMatchObject({ status: 'failed', error: { code: 'upstream_error', message: expect.any(String) } });
    expect(final.body.data).not.toHaveProperty('video_url');
    expect(await balanceAndLedger(stack, accountId)).toEqual({ balance: 100, ledger: 100 });
    const movements = (await stack.context.ledger.listForAccount(accountId)).filter((entry) => entry.taskId === videoId);
    expect(movements.map((entry) => [entry.kind, entry.amount]).sort()).toEqual([
      ['charge', -20],
      ['refund', 20],
    ]);
  });

  it('ends sim:content as content_rejected', async () => {
    const { key } = await newAccount(stack, { credits: 100, paid: false });
    const started = await generate(key, { prompt: 'sim:content' });
    const final = await waitForFinal<Video>(stack, key, `/videos/${started.body.data!.video_id}`);
    expect(final.body.data?.error).toMatchObject({ code: 'content_rejected' });
  });

  it('answers sim:reject with 502 upstream_error and refunds at once', async () => {
    const { accountId, key } = await newAccount(stack, { credits: 100, paid: false });
    const reply = await generate(key, { prompt: 'sim:reject' });
    expect(reply.status).toBe(502);
    expect(reply.body).toEqual({ data: null, error: { code: 'upstream_error', message: expect.any(String) } });
    expect(await balanceAndLedger(stack, accountId)).toEqual({ balance: 100, ledger: 100 });
    const history = await call<{ videos: Video[] }>(stack.baseUrl, '/videos', { key });
    expect(history.body.data?.videos).toEqual([expect.objectContaining({ status: 'failed' })]);
  });
});

describe('refusals', () => {
  it.each([
    ['malformed JSON', '{"prompt": ', 'body'],
    ['a JSON array', '[1,2]', 'body'],
    ['no prompt', { duration: 5 }, 'prompt'],
    ['an unknown model', { prompt: 'x', model: 'image-2' }, 'model'],
    ['a fractional duration', { prompt: 'x', duration: 5.5 }, 'duration'],
    ['image_to_video without image_url', { prompt: 'x', generation_type: 'image_to_video' }, 'image_url'],
  ])('answers %s with 400 naming the field, charging nothing', async (_, body, field) => {
    const { accountId, key } = await newAccount(stack, { credits: 100, paid: false });
    const reply = await generate(key, body);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toEqual({ code: 'validation_error', message: expect.stringContaining(field) });
    expect((await balanceAndLedger(stack, accountId)).balance).toBe(100);
  });

  it('says where a body with the right Content-Type stops being JSON', async () => {
    const { accountId, key } = await newAccount(stack, { credits: 100, paid: false });
    const reply = await generate(key, '{"prompt":"a fox",}');
    expect(reply.status).toBe(400);
    expect(reply.body.error).toEqual({
      code: 'validation_error',
      message: "The request body is not valid JSON: expected a property name in double quotes at line 1, column 19, found '}'.",
    });
    expect((await balanceAndLedger(stack, accountId)).balance).toBe(100);
  });

  it('reads the Content-Type header in any casing', async () => {
    const { key } = await newAccount(stack, { credits: 100, paid: false });
    // node:http keeps header names as written (fetch would lowercase them).
    const status = await new Promise<number>((resolve, reject) => {
      const body = JSON.stringify({ prompt: 'shouting headers', duration: 3 });
      const req = http.request(`${stack.baseUrl}/generate`, {
        method: 'POST',
        headers: { 'CONTENT-TYPE': 'application/json', AUTHORIZATION: `Bearer ${key}`, 'Content-Length': Buffer.byteLength(body) },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end(body);
    });
    expect(status).toBe(200);
  });

  it('answers a wrong Content-Type with 400', async () => {
    const { key } = await newAccount(stack, { credits: 100, paid: false });
    const reply = await generate(key, JSON.stringify({ prompt: 'x' }), { 'Content-Type': 'text/plain' });
    expect(reply.status).toBe(400);
    expect(reply.body.error?.code).toBe('validation_error');
  });

  it('needs a subscription for vid-2-0 (403 paid_access_required) but not for the lite model', async () => {
    const { accountId, key } = await newAccount(stack, { credits: 100, paid: false });
    const reply = await generate(key, { prompt: 'x', model: 'vid-2-0' });
    expect(reply.status).toBe(403);
    expect(reply.body.error?.code).toBe('paid_access_required');
    expect((await balanceAndLedger(stack, accountId)).balance).toBe(100);
    const subscribed = await newAccount(stack, { credits: 100 });
    const ok = await generate(subscribed.key, { prompt: 'x', model: 'vid-2-0', duration: 5 });
    expect(ok.body.data?.credits_used).toBe(38);
  });

  it('checks the subscription before credits, and credits before the provider', async () => {
    const poor = await newAccount(stack, { credits: 1, paid: false });
    expect((await generate(poor.key, { prompt: 'x', model: 'vid-2-0-fast' })).body.error?.code).toBe('paid_access_required');
    const reply = await generate(poor.key, { prompt: 'sim:reject' });
    expect(reply.status).toBe(403);
    expect(reply.body.error?.code).toBe('insufficient_credits');
  });

  it("answers another account's video, and unknown ids, with 404", async () => {
    const owner = await newAccount(stack, { credits: 100, paid: false });
    const stranger = await newAccount(stack, { credits: 100, paid: false });
    const started = await generate(owner.key, { prompt: 'mine', duration: 3 });
    for (const id of [started.body.data!.video_id, 'vid_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'nonsense', 'x'.repeat(1100), '%E0']) {
      const reply = await call(stack.baseUrl, `/videos/${id}`, { key: stranger.key });
      expect(reply.status).toBe(404);
      expect(reply.body.error?.code).toBe('not_found');
    }
  });
});

describe('races over HTTP', () => {
  it('lets exactly K of K+M concurrent requests through for an account with credits for K', async () => {
    const K = 8;
    const M = 12;
    const { accountId, key } = await newAccount(stack, { credits: K * 15, paid: false });
    const replies = await Promise.all(Array.from({ length: K + M }, () => generate(key, { prompt: 'race', duration: 3 })));
    const ok = replies.filter((reply) => reply.status === 200);
    const refused = replies.filter((reply) => reply.status === 403);
    expect(ok).toHaveLength(K);
    expect(refused).toHaveLength(M);
    expect(refused.every((reply) => reply.body.error?.code === 'insufficient_credits')).toBe(true);
    expect(await balanceAndLedger(stack, accountId)).toEqual({ balance: 0, ledger: 0 });
    const history = await call<{ pagination: { total: number } }>(stack.baseUrl, '/videos', { key });
    expect(history.body.data?.pagination.total).toBe(K);
  });

  it('charges once for concurrent retries with one Idempotency-Key, and 409s a different body', async () => {
    const { accountId, key } = await newAccount(stack, { credits: 100, paid: false });
    const headers = { 'Idempotency-Key': 'retry-me-7' };
    const replies = await Promise.all(Array.from({ length: 10 }, () => generate(key, { prompt: 'once', duration: 3 }, headers)));
    expect(replies.every((reply) => reply.status === 200)).toBe(true);
    expect(new Set(replies.map((reply) => reply.body.data?.video_id)).size).toBe(1);
    expect(await balanceAndLedger(stack, accountId)).toEqual({ balance: 85, ledger: 85 });
    const conflict = await generate(key, { prompt: 'twice', duration: 3 }, headers);
    expect(conflict.status).toBe(409);
    expect(conflict.body.error?.code).toBe('idempotency_conflict');
    const tooLong = await generate(key, { prompt: 'x' }, { 'Idempotency-Key': 'k'.repeat(256) });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error?.message).toContain('Idempotency-Key');
  });

  it('answers every concurrent retry with the replay or 409, never 403, when the account can afford only one', async () => {
    // 30 retries of one request under one key, racing, on an account with credits for exactly one.
    const same = await newAccount(stack, { credits: 15, paid: false });
    const sameReplies = await Promise.all(
      Array.from({ length: 30 }, () => generate(same.key, { prompt: 'afford one', duration: 3 }, { 'Idempotency-Key': 'one-only' })),
    );
    expect(sameReplies.map((reply) => reply.status)).toEqual(Array(30).fill(200));
    expect(new Set(sameReplies.map((reply) => reply.body.data?.video_id)).size).toBe(1);
    expect(await balanceAndLedger(stack, same.accountId)).toEqual({ balance: 0, ledger: 0 });

    // Two different bodies racing under one key: one wins and is replayed, the other is a conflict.
    const mixed = await newAccount(stack, { credits: 15, paid: false });
    const mixedReplies = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        generate(mixed.key, { prompt: i % 2 ? 'body a' : 'body b', duration: 3 }, { 'Idempotency-Key': 'two-bodies' }),
      ),
    );
    const codes = mixedReplies.map((reply) => (reply.status === 200 ? reply.body.data?.prompt : reply.body.error?.code));
    const winner = codes.find((code) => code === 'body a' || code === 'body b');
    expect(codes.filter((code) => code === winner)).toHaveLength(15);
    expect(codes.filter((code) => code === 'idempotency_conflict')).toHaveLength(15);
    expect(new Set(mixedReplies.filter((reply) => reply.status === 200).map((reply) => reply.body.data?.video_id)).size).toBe(1);
    expect(await balanceAndLedger(stack, mixed.accountId)).toEqual({ balance: 0, ledger: 0 });
  });
});

describe('end_user and metadata', () => {
  it('are echoed by the start, GET, the list and the events feed; absent ones read null and {}', async () => {
    const { key } = await newAccount(stack, { credits: 100, paid: false });
    const attribution = { end_user: 'alice@example.com', metadata: { order_id: '1001', plan: 'pro' } };
    const started = await generate(key, { prompt: 'a kite', duration: 3, ...attribution });
    expect(started.status).toBe(200);
    expect(started.body.data).toMatchObject(attribution);
    const videoId = started.body.data!.video_id as string;
    const final = await waitForFinal<Video>(stack, key, `/videos/${videoId}`);
    expect(final.body.data).toMatchObject({ status: 'completed', ...attribution });
    const plain = await generate(key, { prompt: 'a plain kite', duration: 3, metadata: {} });
    expect(plain.body.data).toMatchObject({ end_user: null, metadata: {} });
    const listed = await call<{ videos: Video[] }>(stack.baseUrl, '/videos', { key });
    expect(listed.body.data!.videos.map((video) => [video.end_user, video.metadata])).toEqual([
      [null, {}],
      [attribution.end_user, attribution.metadata],
    ]);
    const feed = await call<{ events: Video[] }>(stack.baseUrl, '/events', { key });
    expect(feed.body.data!.events.find((event) => event.data.video_id === videoId)?.data).toEqual(final.body.data);
  });

  it.each([
    [{ end_user: 'alice#1' }, /^end_user: must be 1 to 128 characters/],
    [{ metadata: { order: 7 } }, /^metadata\.order: must be a string$/],
    [{ metadata: Object.fromEntries(Array.from({ length: 17 }, (_, index) => [`k${index}`, 'v'])) }, /^metadata: must have at most 16 keys; got 17$/],
  ])('refuses %j with 400 naming the field, charging nothing', async (field, message) => {
    const { accountId, key } = await newAccount(stack, { credits: 100, paid: false });
    const refused = await generate(key, { prompt: 'x', duration: 3, ...field });
    expect([refused.status, refused.body.error?.code]).toEqual([400, 'validation_error']);
    expect(refused.body.error?.message).toMatch(message);
    const quoted = await call(stack.baseUrl, '/quote', { method: 'POST', key, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ kind: 'video', prompt: 'x', duration: 3, ...field }) });
    expect([quoted.status, quoted.body.error?.message]).toEqual([400, refused.body.error?.message]);
    expect(await balanceAndLedger(stack, accountId)).toEqual({ balance: 100, ledger: 100 });
  });
});

describe('GET /videos', () => {
  it('pages newest first with a pagination block, empty past the end', async () => {
    const { key } = await newAccount(stack, { credits: 1000, paid: false });
    for (const prompt of ['first', 'second', 'third']) await generate(key, { prompt, duration: 3 });
    const page1 = await call<{ videos: Video[]; pagination: object }>(stack.baseUrl, '/videos?limit=2', { key });
    expect(page1.body.data?.videos.map((video) => video.prompt)).toEqual(['third', 'second']);
    expect(page1.body.data?.pagination).toEqual({ page: 1, limit: 2, total: 3, total_pages: 2, has_more: true });
    const page2 = await call<{ videos: Video[] }>(stack.baseUrl, '/videos?limit=2&page=2', { key });
    expect(page2.body.data?.videos.map((video) => video.prompt)).toEqual(['first']);
    const past = await call<{ videos: Video[] }>(stack.baseUrl, '/videos?page=9', { key });
    expect(past.status).toBe(200);
    expect(past.body.data?.videos).toEqual([]);
  });

  it.each(['page=0', 'page=abc', 'limit=0', 'limit=51', 'limit=2.5', 'page=-1'])('answers %s with 400 naming it', async (query) => {
    const { key } = await newAccount(stack, { credits: 0, paid: false });
    const reply = await call(stack.baseUrl, `/videos?${query}`, { key });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toEqual({ code: 'validation_error', message: expect.stringContaining(query.split('=')[0]!) });
  });
});
