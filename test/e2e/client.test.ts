import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import type { LocalStack } from '#bin/local-stack/stack';
import { createAccount, createApiKey } from '#domain/accounts/account-admin';
import { ApiError, VidgenClient, type VidgenClientOptions } from '#client';
import { startTestApi } from '#test-support/local-api';

/**
 * The TypeScript client against the real local stack over HTTP (simulated provider, no delay),
 * and its retries seen from a small proxy in front of the API that fails on purpose.
 */
jest.setTimeout(60_000);

let stack: LocalStack;
let proxy: Proxy;

beforeAll(async () => {
  stack = await startTestApi({ SIM_DELAY_SECONDS: '0', PROVIDER: 'simulated' });
  proxy = await startProxy(stack.baseUrl);
});
afterAll(async () => {
  await proxy?.stop();
  await stack?.stop();
});
beforeEach(() => proxy.reset());

/** A fresh account (paid, active subscription, a generous rate limit); returns its API key. */
async function newKey(credits = 500): Promise<string> {
  const { account } = await createAccount(stack.context, { credits, paidAccess: true, subscriptionStatus: 'active' });
  return (await createApiKey(stack.context, account.accountId, { rateLimit: 1000 })).apiKey;
}

async function newClient(credits = 500, options: Partial<VidgenClientOptions> = {}) {
  return new VidgenClient({ apiKey: await newKey(credits), baseUrl: stack.baseUrl, ...options });
}

/**
 * A client that talks to the API through the proxy, with a sleep that records and returns at
 * once, and a direct client for the same account to look at the outcome.
 */
async function proxiedClient(options: Partial<VidgenClientOptions> = {}) {
  const apiKey = await newKey();
  const slept: number[] = [];
  const sleep = async (ms: number) => {
    slept.push(ms);
  };
  const client = new VidgenClient({ apiKey, baseUrl: proxy.baseUrl, sleep, ...options });
  return { client, direct: new VidgenClient({ apiKey, baseUrl: stack.baseUrl }), slept };
}

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

const tinyPng = () => sharp({ create: { width: 8, height: 8, channels: 3, background: '#0088ff' } }).png().toBuffer();

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

describe('every endpoint through the client', () => {
  it('generateVideo, then waitForVideo until a real MP4 is ready; getVideo and listVideos agree', async () => {
    const client = await newClient();
    const started = await client.generateVideo({ prompt: 'a paper boat on a pond', duration: 3, resolution: '480p' });
    expect(started).toMatchObject({ status: 'processing', model: 'vid-1-5-pro', duration: 3, resolution: '480p', credits_used: 15 });
    expect(started.video_id).toMatch(/^vid_/);

    const seen: string[] = [];
    const final = await client.waitForVideo(started.video_id, { intervalMs: 200, timeoutMs: 45_000, onProgress: (v) => seen.push(v.status) });
    expect(final).toMatchObject({ video_id: started.video_id, status: 'completed', completed_at: expect.any(String) });
    expect(seen.at(-1)).toBe('completed');
    expect(seen.slice(0, -1).every((status) => status === 'processing')).toBe(true);

    const bytes = Buffer.from(await (await fetch(final.video_url!)).arrayBuffer());
    expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');

    expect(await client.getVideo(started.video_id)).toEqual(final);
    const page = await client.listVideos({ page: 1, limit: 5 });
    expect(page.videos.map((v) => v.video_id)).toEqual([started.video_id]);
    expect(page.pagination).toEqual({ page: 1, limit: 5, total: 1, total_pages: 1, has_more: false });
  });

  it('deleteVideo and deleteImage delete a final task\'s outputs (a repeat answers the same); a processing task is task_not_final', async () => {
    const client = await newClient();
    const video = await client.waitForVideo((await client.generateVideo({ prompt: 'a paper boat to delete', duration: 3, resolution: '480p' })).video_id, { intervalMs: 200, timeoutMs: 45_000 });
    const deleted = await client.deleteVideo(video.video_id);
    expect(deleted).toMatchObject({ video_id: video.video_id, status: 'completed', thumbnail_url: null, output_deleted_at: expect.any(String) });
    expect(deleted.video_url).toBeUndefined();
    expect(await client.deleteVideo(video.video_id)).toEqual(deleted);
    expect((await fetch(video.video_url!)).status).toBe(404);
    const image = await client.waitForImage((await client.generateImage({ prompt: 'a lighthouse to delete' })).image_id, { intervalMs: 200, timeoutMs: 45_000 });
    expect(await client.deleteImage(image.image_id)).toMatchObject({ image_id: image.image_id, output_deleted_at: expect.any(String) });
    const stalled = await client.generateVideo({ prompt: 'sim:stall a boat', duration: 3 });
    await expect(client.deleteVideo(stalled.video_id)).rejects.toMatchObject({ status: 409, code: 'task_not_final' });
  });

  it('getCredits reports the balance and what a video took', async () => {
    const client = await newClient(100);
    expect(await client.getCredits()).toEqual({ credits: 100, paid_access: true, subscription_status: 'active' });
    await client.generateVideo({ prompt: 'three seconds', duration: 3 });
    expect((await client.getCredits()).credits).toBe(85);
  });

  it('generateImage, then waitForImage until a real PNG is ready; listImages has it', async () => {
    const client = await newClient();
    const started = await client.generateImage({ prompt: 'a lighthouse at dusk' });
    expect(started).toMatchObject({ status: 'processing', model: 'image-2', resolution: '1k', output_format: 'png', credits_used: 5 });
    const final = await client.waitForImage(started.image_id, { intervalMs: 200, timeoutMs: 45_000 });
    expect(final.status).toBe('completed');
    expect(final.image_urls).toHaveLength(1);
    const bytes = new Uint8Array(await (await fetch(final.image_urls![0]!)).arrayBuffer());
    expect([...bytes.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
    expect(await client.getImage(started.image_id)).toEqual(final);
    expect((await client.listImages({ limit: 10 })).images.map((i) => i.image_id)).toEqual([started.image_id]);
  });

  it('waitForVideo returns a failed task (refunded) rather than throwing', async () => {
    const client = await newClient(100);
    const started = await client.generateVideo({ prompt: 'sim:fail please', duration: 3 });
    const final = await client.waitForVideo(started.video_id, { intervalMs: 200, timeoutMs: 45_000 });
    expect(final).toMatchObject({ status: 'failed', error: { code: 'upstream_error' } });
    expect((await client.getCredits()).credits).toBe(100);
  });

  it('uploadImage stores a PNG whose URL generateVideo accepts as image_url', async () => {
    const client = await newClient();
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#ff8800' } }).png().toBuffer();
    const uploaded = await client.uploadImage(new Uint8Array(png), { filename: 'orange.png', contentType: 'image/png' });
    expect(uploaded).toEqual({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\//), content_type: 'image/png', size: png.length });
    const stored = Buffer.from(await (await fetch(uploaded.url)).arrayBuffer());
    expect(stored.equals(png)).toBe(true);

    const started = await client.generateVideo({ prompt: 'make it move', generation_type: 'image_to_video', image_url: uploaded.url, duration: 3 });
    expect(started).toMatchObject({ status: 'processing', generation_type: 'image_to_video', image_url: uploaded.url });
  });

  it('uploadImage sends a file over 4 MB straight to storage and publishes it', async () => {
    const { client } = await proxiedClient();
    const side = 1200; // random pixels do not compress: about 4.3 MB of PNG
    const png = await sharp(randomBytes(side * side * 3), { raw: { width: side, height: side, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    expect(png.length).toBeGreaterThan(4_000_000);
    const uploaded = await client.uploadImage(png, { filename: 'noise.png' });
    expect(uploaded).toEqual({ url: expect.stringContaining('/media/uploads/'), content_type: 'image/png', size: png.length });
    // Through the API only the two small calls; the file itself went to storage.
    expect(proxy.requests.map((r) => r.path)).toEqual(['/api/v1/uploads', expect.stringMatching(/^\/api\/v1\/uploads\/upl_[0-9a-f]{32}\/complete$/)]);
    const stored = Buffer.from(await (await fetch(uploaded.url)).arrayBuffer());
    expect(stored.equals(png)).toBe(true);

    const small = await tinyPng();
    proxy.reset();
    expect(await client.uploadImage(small, { via: 'direct' })).toMatchObject({ content_type: 'image/png', size: small.length });
    expect(proxy.requests).toHaveLength(2);
  });

  it('the same idempotencyKey twice starts and charges one task', async () => {
    const client = await newClient(100);
    const first = await client.generateVideo({ prompt: 'once', duration: 3 }, { idempotencyKey: 'order-1' });
    const again = await client.generateVideo({ prompt: 'once', duration: 3 }, { idempotencyKey: 'order-1' });
    expect(again.video_id).toBe(first.video_id);
    expect((await client.getCredits()).credits).toBe(85);
    const conflict = await rejection(client.generateVideo({ prompt: 'something else' }, { idempotencyKey: 'order-1' }));
    expect(conflict).toMatchObject({ status: 409, code: 'idempotency_conflict' });
  });
});

describe('errors', () => {
  it('a bad key is ApiError unauthorized with the request id', async () => {
    const client = new VidgenClient({ apiKey: 'vg_live_notakeynotakeynotakeynotakey00', baseUrl: stack.baseUrl });
    const error = await rejection(client.getCredits());
    expect(error).toMatchObject({ name: 'ApiError', code: 'unauthorized', status: 401 });
    expect(error.message).toMatch(/API key/);
    expect(error.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a 400 validation_error carries the API message', async () => {
    const client = await newClient();
    const error = await rejection(client.generateVideo({ prompt: 'x', duration: 99 }));
    expect(error).toMatchObject({ status: 400, code: 'validation_error' });
    expect(error.message).toMatch(/duration/);
    expect(error.requestId).toBeTruthy();

    const resolution = await rejection(client.generateVideo({ prompt: 'x', resolution: '4k' as never }));
    expect(resolution.message).toMatch(/resolution/);
  });

  it('an unknown id is 404 not_found', async () => {
    const client = await newClient();
    expect(await rejection(client.getVideo('vid_01M7ZNHRE3YZJA4Y3XQS4DQDGQ'))).toMatchObject({ status: 404, code: 'not_found' });
    expect(await rejection(client.getImage('img_01M7ZNHRE3YZJA4Y3XQS4DQDGQ'))).toMatchObject({ status: 404, code: 'not_found' });
  });
});

describe('retries, seen at a proxy in front of the API', () => {
  it('429 with Retry-After: waits, retries with the same Idempotency-Key, starts one task', async () => {
    const { client, direct, slept } = await proxiedClient();
    proxy.script(rateLimitReply(), rateLimitReply());
    const task = await client.generateVideo({ prompt: 'after the queue', duration: 3 });
    expect(proxy.requests.map((r) => r.method + ' ' + r.path)).toEqual(Array(3).fill('POST /api/v1/generate'));
    const keys = proxy.requests.map((r) => r.idempotencyKey);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
    expect(slept).toEqual([1000, 1000]);
    expect((await direct.listVideos()).videos.map((v) => v.video_id)).toEqual([task.video_id]);
  });

  it('waits for real when Retry-After says so (default sleep)', async () => {
    const { client } = await proxiedClient({ sleep: undefined });
    proxy.script(rateLimitReply());
    const started = Date.now();
    await expect(client.getCredits()).resolves.toMatchObject({ credits: 500 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(proxy.requests).toHaveLength(2);
  });

  it('a 502 whose request did reach the API: the retry under the same key gets the same task, charged once', async () => {
    const { client, direct } = await proxiedClient();
    proxy.script('forward-then-502');
    const task = await client.generateVideo({ prompt: 'lost answer', duration: 3 });
    expect(proxy.requests).toHaveLength(2);
    expect(proxy.requests[0]!.idempotencyKey).toBe(proxy.requests[1]!.idempotencyKey);
    const page = await direct.listVideos();
    expect(page.videos.map((v) => v.video_id)).toEqual([task.video_id]);
    expect((await direct.getCredits()).credits).toBe(500 - 15);
  });

  it('a generate call with idempotencyKey: null is not retried on 502', async () => {
    const { client, direct } = await proxiedClient();
    proxy.script(upstreamErrorReply());
    const error = await rejection(client.generateVideo({ prompt: 'no key' }, { idempotencyKey: null }));
    expect(error).toMatchObject({ status: 502, code: 'upstream_error', message: 'The provider is unavailable.' });
    expect(proxy.requests).toHaveLength(1);
    expect(proxy.requests[0]!.idempotencyKey).toBeUndefined();
    expect((await direct.listVideos()).videos).toEqual([]);
  });

  it('a GET retries 502s, then answers', async () => {
    const { client, slept } = await proxiedClient();
    proxy.script(upstreamErrorReply(), upstreamErrorReply());
    await expect(client.getCredits()).resolves.toMatchObject({ credits: 500 });
    expect(proxy.requests.map((r) => r.method + ' ' + r.path)).toEqual(Array(3).fill('GET /api/v1/credits'));
    expect(slept).toHaveLength(2);
    expect(slept[0]).toBeGreaterThanOrEqual(250);
    expect(slept[0]).toBeLessThanOrEqual(500);
    expect(slept[1]).toBeGreaterThanOrEqual(500);
    expect(slept[1]).toBeLessThanOrEqual(1000);
  });

  it('a GET retries a dropped connection (network_error); giving up reports status 0', async () => {
    const { client } = await proxiedClient();
    proxy.script('hang-up');
    await expect(client.listVideos()).resolves.toMatchObject({ videos: [] });
    expect(proxy.requests).toHaveLength(2);

    proxy.reset();
    proxy.script('hang-up', 'hang-up', 'hang-up', 'hang-up');
    const error = await rejection(client.listVideos());
    expect(error).toMatchObject({ code: 'network_error', status: 0 });
    expect(proxy.requests).toHaveLength(4);
  });

  it("a proxy's HTML 502 page is ApiError upstream_error with a clear message", async () => {
    const { client } = await proxiedClient({ retry: { maxRetries: 0 } });
    proxy.script({ status: 502, headers: { 'Content-Type': 'text/html' }, body: '<html><h1>502 Bad Gateway</h1></html>' });
    const error = await rejection(client.getCredits());
    expect(error).toMatchObject({ status: 502, code: 'upstream_error', requestId: undefined });
    expect(error.message).toMatch(/HTTP 502 .*text\/html.*not the API's JSON envelope.*502 Bad Gateway/);
  });

  it('uploads: retried after a 429, never after a 502', async () => {
    const { client } = await proxiedClient();
    const stored = { url: 'http://example.test/u.png', content_type: 'image/png', size: 8 };
    proxy.script(rateLimitReply(), { status: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ data: stored, error: null }) });
    await expect(client.uploadImage(new Uint8Array(PNG_SIGNATURE))).resolves.toEqual(stored);
    expect(proxy.requests.map((r) => r.method + ' ' + r.path)).toEqual(Array(2).fill('POST /api/v1/upload'));
    expect(proxy.requests[1]!.contentType).toMatch(/^multipart\/form-data; boundary=/);

    proxy.reset();
    proxy.script(upstreamErrorReply());
    expect(await rejection(client.uploadImage(new Uint8Array(PNG_SIGNATURE)))).toMatchObject({ status: 502 });
    expect(proxy.requests).toHaveLength(1);
  });
});

describe('waitForVideo and AbortSignal', () => {
  it('an abort mid-wait rejects promptly; the task carries on', async () => {
    const client = await newClient();
    const started = await client.generateVideo({ prompt: 'sim:stall forever', duration: 3 });
    const controller = new AbortController();
    const polls: string[] = [];
    let abortedAt = 0;
    // Abort 300 ms into the 10 s wait after the first poll (not 300 ms after the start, which a
    // slow first poll could overrun).
    const waiting = client.waitForVideo(started.video_id, {
      intervalMs: 10_000,
      signal: controller.signal,
      onProgress: (v) => {
        polls.push(v.status);
        setTimeout(() => {
          abortedAt = Date.now();
          controller.abort();
        }, 300);
      },
    });
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    expect(abortedAt).toBeGreaterThan(0);
    expect(Date.now() - abortedAt).toBeLessThan(2_000);
    expect(polls).toEqual(['processing']);
    expect((await client.getVideo(started.video_id)).status).toBe('processing');
  });
});

// ---------------------------------------------------------------------------------------------
// The proxy: answers scripted replies to the first requests, then forwards to the API.

interface ScriptedReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}
/** 'forward-then-502': the API handles the request but the proxy answers its own bare 502. 'hang-up': the connection is dropped. */
type Step = ScriptedReply | 'forward-then-502' | 'hang-up';

interface SeenRequest {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  contentType: string | undefined;
}

interface Proxy {
  baseUrl: string;
  requests: SeenRequest[];
  script(...steps: Step[]): void;
  reset(): void;
  stop(): Promise<void>;
}

const rateLimitReply = (): ScriptedReply => ({
  status: 429,
  headers: { 'Content-Type': 'application/json', 'Retry-After': '1', 'X-Request-Id': 'proxy-429' },
  body: JSON.stringify({ data: null, error: { message: 'Too many requests.', code: 'rate_limit_exceeded' } }),
});
const upstreamErrorReply = (): ScriptedReply => ({
  status: 502,
  headers: { 'Content-Type': 'application/json', 'X-Request-Id': 'proxy-502' },
  body: JSON.stringify({ data: null, error: { message: 'The provider is unavailable.', code: 'upstream_error' } }),
});

async function startProxy(apiBaseUrl: string): Promise<Proxy> {
  const target = new URL(apiBaseUrl);
  const requests: SeenRequest[] = [];
  let steps: Step[] = [];

  const forward = (req: http.IncomingMessage, body: Buffer): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> =>
    new Promise((resolve, reject) => {
      const upstream = http.request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }));
          res.on('error', reject);
        },
      );
      upstream.on('error', reject);
      upstream.end(body);
    });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const header = (name: string) => req.headers[name] as string | undefined;
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        idempotencyKey: header('idempotency-key'),
        contentType: header('content-type'),
      });
      const step = steps.shift();
      try {
        if (step === 'hang-up') {
          req.socket.destroy();
          return;
        }
        if (step === undefined || step === 'forward-then-502') {
          const answer = await forward(req, Buffer.concat(chunks));
          if (step === 'forward-then-502') {
            // The proxy's own 502 (not the API's enveloped upstream_error, which is never retried).
            res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body>502 Bad Gateway</body></html>');
            return;
          }
          const { 'transfer-encoding': _te, connection: _c, ...headers } = answer.headers;
          res.writeHead(answer.status, { ...headers, 'content-length': String(answer.body.length) }).end(answer.body);
          return;
        }
        res.writeHead(step.status, step.headers).end(step.body);
      } catch (error) {
        res.writeHead(599).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}${target.pathname}`,
    requests,
    script: (...more) => steps.push(...more),
    reset: () => {
      requests.length = 0;
      steps = [];
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
