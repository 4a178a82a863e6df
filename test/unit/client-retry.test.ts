import { ApiError, backoffDelay, VidgenClient, WaitTimeoutError, type FetchLike, type RetryInfo, type VidgenClientOptions } from '#client';

/** The client's retry policy and waiting, with an injected fetch and sleep (no network, no waiting). */

type Reply = Response | Error | (() => Response | Error);

function fakeFetch(...replies: Reply[]) {
  const sent: Array<{ url: string; method: string; key: string | undefined }> = [];
  const fetch: FetchLike = async (url, init) => {
    sent.push({ url, method: init.method!, key: (init.headers as Record<string, string>)['Idempotency-Key'] });
    let reply = replies.length > 1 ? replies.shift()! : replies[0]!;
    if (typeof reply === 'function') reply = reply();
    if (reply instanceof Error) throw reply;
    return reply.clone();
  };
  return { fetch, sent };
}

const ok = (data: unknown) => Response.json({ data, error: null });
const fail = (status: number, code: string, headers: Record<string, string> = {}) =>
  Response.json({ data: null, error: { message: `failed with ${code}`, code } }, { status, headers });
const rateLimited = (retryAfter?: string) => fail(429, 'rate_limit_exceeded', retryAfter === undefined ? {} : { 'Retry-After': retryAfter });
const refused = () => new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:9') });

function setup(fetch: FetchLike, options: Partial<VidgenClientOptions> = {}) {
  const slept: number[] = [];
  const retries: RetryInfo[] = [];
  const api = new VidgenClient({
    apiKey: 'vg_live_test',
    baseUrl: 'https://api.example.test/api/v1',
    fetch,
    sleep: async (ms) => {
      slept.push(ms);
    },
    onRetry: (info) => retries.push(info),
    ...options,
  });
  return { api, slept, retries };
}

afterEach(() => jest.restoreAllMocks());

describe('429: always retried (nothing happened), after Retry-After', () => {
  it('waits Retry-After seconds and reuses the Idempotency-Key', async () => {
    const { fetch, sent } = fakeFetch(rateLimited('2'), rateLimited('1'), ok({ video_id: 'vid_1' }));
    const { api, slept, retries } = setup(fetch);
    await expect(api.generateVideo({ prompt: 'x' })).resolves.toEqual({ video_id: 'vid_1' });
    expect(slept).toEqual([2000, 1000]);
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((s) => s.key)).size).toBe(1);
    expect(sent[0]!.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(retries.map((r) => [r.attempt, r.delayMs, r.error.code, r.method])).toEqual([
      [1, 2000, 'rate_limit_exceeded', 'POST'],
      [2, 1000, 'rate_limit_exceeded', 'POST'],
    ]);
  });

  it('bounds Retry-After by maxDelayMs', async () => {
    const { fetch } = fakeFetch(rateLimited('120'), ok({}));
    const { api, slept } = setup(fetch, { retry: { maxDelayMs: 5000 } });
    await api.getCredits();
    expect(slept).toEqual([5000]);
  });

  it('backs off exponentially when there is no Retry-After', async () => {
    jest.spyOn(Math, 'random').mockReturnValue(1);
    const { fetch } = fakeFetch(rateLimited(), rateLimited(), ok({}));
    const { api, slept } = setup(fetch);
    await api.getCredits();
    expect(slept).toEqual([500, 1000]);
  });

  it('retries uploads and generate calls without an Idempotency-Key too', async () => {
    const upload = fakeFetch(rateLimited('1'), ok({ url: 'u' }));
    await expect(setup(upload.fetch).api.uploadImage(new Uint8Array([1]))).resolves.toEqual({ url: 'u' });
    expect(upload.sent).toHaveLength(2);

    const generate = fakeFetch(rateLimited('1'), ok({ video_id: 'v' }));
    await setup(generate.fetch).api.generateVideo({ prompt: 'x' }, { idempotencyKey: null });
    expect(generate.sent.map((s) => s.key)).toEqual([undefined, undefined]);
  });

  it('gives up after maxRetries with the last 429', async () => {
    const { fetch, sent } = fakeFetch(rateLimited('1'));
    const { api, slept } = setup(fetch, { retry: { maxRetries: 2 } });
    await expect(api.getCredits()).rejects.toMatchObject({ code: 'rate_limit_exceeded', status: 429, retryAfter: 1 });
    expect(sent).toHaveLength(3);
    expect(slept).toEqual([1000, 1000]);
  });
});

describe('5xx and network errors: retried only when the call is idempotent', () => {
  it('GETs retry 500, 502, 503, 504 with exponential backoff', async () => {
    jest.spyOn(Math, 'random').mockReturnValue(1);
    const { fetch, sent } = fakeFetch(fail(502, 'upstream_error'), fail(503, 'upstream_error'), fail(500, 'internal_error'), ok({ credits: 5 }));
    const { api, slept } = setup(fetch);
    await expect(api.getCredits()).resolves.toEqual({ credits: 5 });
    expect(sent).toHaveLength(4);
    expect(slept).toEqual([500, 1000, 2000]);

    const { fetch: fetch504 } = fakeFetch(new Response('Gateway Timeout', { status: 504 }), ok({}));
    await expect(setup(fetch504).api.listVideos()).resolves.toEqual({});
  });

  it('jitter keeps each delay between half and all of base * 2^attempt, capped by maxDelayMs', () => {
    const retry = { baseDelayMs: 500, maxDelayMs: 3000 };
    for (let i = 0; i < 200; i++) {
      expect(backoffDelay(0, retry)).toBeGreaterThanOrEqual(250);
      expect(backoffDelay(0, retry)).toBeLessThanOrEqual(500);
      expect(backoffDelay(2, retry)).toBeGreaterThanOrEqual(1000);
      expect(backoffDelay(2, retry)).toBeLessThanOrEqual(2000);
      expect(backoffDelay(10, retry)).toBeGreaterThanOrEqual(1500);
      expect(backoffDelay(10, retry)).toBeLessThanOrEqual(3000);
    }
    jest.spyOn(Math, 'random').mockReturnValue(0);
    expect([0, 1, 2, 3].map((attempt) => backoffDelay(attempt, retry))).toEqual([250, 500, 1000, 1500]);
  });

  it('GETs retry network errors', async () => {
    const { fetch, sent } = fakeFetch(refused(), ok({ videos: [] }));
    const { api } = setup(fetch);
    await expect(api.listVideos({ page: 1 })).resolves.toEqual({ videos: [] });
    expect(sent).toHaveLength(2);
  });

  it('generate calls retry with the same generated Idempotency-Key', async () => {
    const { fetch, sent } = fakeFetch(fail(503, 'internal_error'), refused(), ok({ image_id: 'img_1' }));
    const { api } = setup(fetch);
    await expect(api.generateImage({ prompt: 'x' })).resolves.toEqual({ image_id: 'img_1' });
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((s) => s.key)).size).toBe(1);
  });

  it("generate calls do not retry the API's own 502 (the stored answer under that key), but do retry a proxy's 502", async () => {
    const api502 = fakeFetch(fail(502, 'upstream_error'), ok({ video_id: 'vid_1' }));
    await expect(setup(api502.fetch).api.generateVideo({ prompt: 'x' })).rejects.toMatchObject({ status: 502, code: 'upstream_error' });
    expect(api502.sent).toHaveLength(1);

    const proxy502 = () => new Response('<html><body>502 Bad Gateway</body></html>', { status: 502, headers: { 'Content-Type': 'text/html' } });
    const { fetch, sent } = fakeFetch(proxy502, ok({ video_id: 'vid_1' }));
    await expect(setup(fetch).api.generateVideo({ prompt: 'x' })).resolves.toEqual({ video_id: 'vid_1' });
    expect(sent).toHaveLength(2);
    expect(new Set(sent.map((s) => s.key)).size).toBe(1);
  });

  it("generate calls retry with the caller's own key", async () => {
    const { fetch, sent } = fakeFetch(fail(500, 'internal_error'), ok({ video_id: 'vid_1' }));
    await setup(fetch).api.generateVideo({ prompt: 'x' }, { idempotencyKey: 'mine' });
    expect(sent.map((s) => s.key)).toEqual(['mine', 'mine']);
  });

  it('generate calls with idempotencyKey: null are not retried on 5xx or network errors', async () => {
    for (const reply of [fail(502, 'upstream_error'), fail(500, 'internal_error'), refused()]) {
      const { fetch, sent } = fakeFetch(reply, ok({ video_id: 'vid_1' }));
      const { api, slept } = setup(fetch);
      await expect(api.generateVideo({ prompt: 'x' }, { idempotencyKey: null })).rejects.toBeInstanceOf(ApiError);
      expect(sent).toHaveLength(1);
      expect(slept).toEqual([]);
    }
  });

  it('uploads are not retried on 5xx or network errors', async () => {
    for (const reply of [fail(502, 'upstream_error'), fail(503, 'upstream_error'), refused()]) {
      const { fetch, sent } = fakeFetch(reply, ok({ url: 'u' }));
      await expect(setup(fetch).api.uploadImage(new Uint8Array([1]))).rejects.toBeInstanceOf(ApiError);
      expect(sent).toHaveLength(1);
    }
  });

  it('gives up after maxRetries with the last error; maxRetries 0 never retries', async () => {
    const { fetch, sent } = fakeFetch(fail(503, 'upstream_error'));
    await expect(setup(fetch).api.getCredits()).rejects.toMatchObject({ status: 503, code: 'upstream_error' });
    expect(sent).toHaveLength(4);

    const once = fakeFetch(fail(503, 'upstream_error'));
    await expect(setup(once.fetch, { retry: { maxRetries: 0 } }).api.getCredits()).rejects.toMatchObject({ status: 503 });
    expect(once.sent).toHaveLength(1);
  });
});

describe('never retried', () => {
  it.each([
    [400, 'validation_error'],
    [401, 'unauthorized'],
    [403, 'insufficient_credits'],
    [404, 'not_found'],
    [409, 'idempotency_conflict'],
    [413, 'payload_too_large'],
  ])('%i %s', async (status, code) => {
    const { fetch, sent } = fakeFetch(fail(status, code), ok({}));
    await expect(setup(fetch).api.generateVideo({ prompt: 'x' })).rejects.toMatchObject({ status, code });
    expect(sent).toHaveLength(1);
  });
});

describe('aborting', () => {
  it('during a retry wait rejects at once with the reason (default sleep, real timers)', async () => {
    const { fetch, sent } = fakeFetch(rateLimited('30'), ok({}));
    const api = new VidgenClient({ apiKey: 'k', fetch });
    const controller = new AbortController();
    const started = Date.now();
    const pending = api.getCredits({ signal: controller.signal });
    setTimeout(() => controller.abort(), 30);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(sent).toHaveLength(1);
  });
});

describe('waitForVideo / waitForImage', () => {
  const video = (status: string, extra: object = {}) => ok({ video_id: 'vid_1', status, ...extra });

  it('polls every intervalMs until completed, reporting each poll', async () => {
    const { fetch, sent } = fakeFetch(video('processing'), video('processing'), video('completed', { video_url: 'https://m/v.mp4' }));
    const { api, slept } = setup(fetch);
    const seen: string[] = [];
    const final = await api.waitForVideo('vid_1', { intervalMs: 1234, onProgress: (task) => seen.push(task.status) });
    expect(final).toMatchObject({ status: 'completed', video_url: 'https://m/v.mp4' });
    expect(seen).toEqual(['processing', 'processing', 'completed']);
    expect(slept).toEqual([1234, 1234]);
    expect(sent.every((s) => s.url === 'https://api.example.test/api/v1/videos/vid_1')).toBe(true);
  });

  it('returns a failed task instead of throwing', async () => {
    const failed = { image_id: 'img_1', status: 'failed', error: { code: 'content_rejected', message: 'no' } };
    const { fetch } = fakeFetch(ok({ image_id: 'img_1', status: 'processing' }), ok(failed));
    const { api, slept } = setup(fetch);
    await expect(api.waitForImage('img_1')).resolves.toEqual(failed);
    expect(slept).toEqual([5000]);
  });

  it('a poll that fails for good rejects with its ApiError', async () => {
    const { fetch } = fakeFetch(video('processing'), fail(404, 'not_found'));
    await expect(setup(fetch).api.waitForVideo('vid_1')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('gives up after timeoutMs with WaitTimeoutError and the last task', async () => {
    const { fetch } = fakeFetch(video('processing'));
    const api = new VidgenClient({ apiKey: 'k', fetch });
    const error = await api.waitForVideo('vid_1', { intervalMs: 10, timeoutMs: 50 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect((error as WaitTimeoutError).lastTask).toMatchObject({ video_id: 'vid_1', status: 'processing' });
    expect((error as Error).message).toBe('vid_1 is still processing after 50 ms.');
  });

  it('an abort mid-sleep rejects promptly with AbortError, or with the reason given', async () => {
    const { fetch, sent } = fakeFetch(video('processing'));
    const api = new VidgenClient({ apiKey: 'k', fetch });
    const controller = new AbortController();
    const started = Date.now();
    const pending = api.waitForVideo('vid_1', { intervalMs: 60_000, signal: controller.signal });
    setTimeout(() => controller.abort(), 30);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(sent).toHaveLength(1);

    const again = new AbortController();
    const reason = new Error('shutting down');
    const second = api.waitForVideo('vid_1', { intervalMs: 60_000, signal: again.signal });
    setTimeout(() => again.abort(reason), 10);
    await expect(second).rejects.toBe(reason);
  });

  it('an injected sleep that ignores the signal does not hold up an abort', async () => {
    const { fetch } = fakeFetch(video('processing'));
    const api = new VidgenClient({ apiKey: 'k', fetch, sleep: () => new Promise(() => {}) });
    const controller = new AbortController();
    const pending = api.waitForVideo('vid_1', { signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('an already aborted signal rejects before any request', async () => {
    const { fetch, sent } = fakeFetch(video('processing'));
    await expect(
      new VidgenClient({ apiKey: 'k', fetch }).waitForVideo('vid_1', { signal: AbortSignal.abort() }),
    ).rejects.toMatchObject({ name: 'AbortError' });
    expect(sent).toHaveLength(0);
  });
});
