import { ApiError, parseRetryAfter, readEnvelope, VidgenClient, type FetchLike } from '#client';

/** What the client sends and how it reads answers, with an injected fetch (no network). */

interface Sent {
  url: string;
  init: RequestInit;
}

function fakeFetch(...replies: Array<Response | Error>) {
  const sent: Sent[] = [];
  const fetch: FetchLike = async (url, init) => {
    sent.push({ url, init });
    const reply = replies.length > 1 ? replies.shift()! : replies[0]!;
    if (reply instanceof Error) throw reply;
    return reply.clone();
  };
  return { fetch, sent };
}

const envelope = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });
const ok = (data: unknown, headers: Record<string, string> = {}) => envelope(200, { data, error: null }, headers);
const html = (status: number, text = '<html><body><h1>502 Bad Gateway</h1></body></html>', headers: Record<string, string> = {}) =>
  new Response(text, { status, headers: { 'Content-Type': 'text/html', ...headers } });

const noRetry = { maxRetries: 0 };
const client = (fetch: FetchLike, options: Partial<ConstructorParameters<typeof VidgenClient>[0]> = {}) =>
  new VidgenClient({ apiKey: 'vg_live_test', baseUrl: 'https://api.example.test/api/v1/', fetch, retry: noRetry, ...options });

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('requests', () => {
  it('sends the key, JSON bodies and a fresh Idempotency-Key per generate call', async () => {
    const { fetch, sent } = fakeFetch(ok({ video_id: 'vid_1', status: 'processing' }));
    const api = client(fetch);
    await expect(api.generateVideo({ prompt: 'a cat', duration: 3 })).resolves.toEqual({ video_id: 'vid_1', status: 'processing' });
    await api.generateImage({ prompt: 'a dog', output_format: 'webp' });

    expect(sent.map((s) => [s.init.method, s.url])).toEqual([
      ['POST', 'https://api.example.test/api/v1/generate'],
      ['POST', 'https://api.example.test/api/v1/generate-image'],
    ]);
    const [first, second] = sent.map((s) => s.init.headers as Record<string, string>);
    expect(first).toMatchObject({ Authorization: 'Bearer vg_live_test', 'Content-Type': 'application/json' });
    expect(JSON.parse(sent[0]!.init.body as string)).toEqual({ prompt: 'a cat', duration: 3 });
    expect(first!['Idempotency-Key']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(second!['Idempotency-Key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(second!['Idempotency-Key']).not.toBe(first!['Idempotency-Key']);
  });

  it('sends a caller-chosen Idempotency-Key, or none with idempotencyKey: null', async () => {
    const { fetch, sent } = fakeFetch(ok({ video_id: 'vid_1' }));
    const api = client(fetch);
    await api.generateVideo({ prompt: 'x' }, { idempotencyKey: 'order-42' });
    await api.generateVideo({ prompt: 'x' }, { idempotencyKey: null });
    expect((sent[0]!.init.headers as Record<string, string>)['Idempotency-Key']).toBe('order-42');
    expect(sent[1]!.init.headers).not.toHaveProperty('Idempotency-Key');
  });

  it('builds GET URLs: query parameters, escaped ids, no body', async () => {
    const { fetch, sent } = fakeFetch(ok({}));
    const api = client(fetch);
    await api.listVideos({ page: 2, limit: 50 });
    await api.listImages();
    await api.listVideos({ endUser: 'alice@example.com' });
    await api.getVideo('vid_../x y');
    await api.getImage('img_1');
    await api.getCredits();
    expect(sent.map((s) => s.url)).toEqual([
      'https://api.example.test/api/v1/videos?page=2&limit=50',
      'https://api.example.test/api/v1/images',
      'https://api.example.test/api/v1/videos?end_user=alice%40example.com',
      'https://api.example.test/api/v1/videos/vid_..%2Fx%20y',
      'https://api.example.test/api/v1/images/img_1',
      'https://api.example.test/api/v1/credits',
    ]);
    expect(sent.every((s) => s.init.method === 'GET' && s.init.body === undefined)).toBe(true);
  });

  it('uploads multipart/form-data with one part named image', async () => {
    const { fetch, sent } = fakeFetch(ok({ url: 'https://media/x.png', content_type: 'image/png', size: 4 }));
    const api = client(fetch);
    await api.uploadImage(new Uint8Array([0x89, 0x50, 0x4e, 0x47]), { filename: 'cat.png', contentType: 'image/png' });
    await api.uploadImage(new Blob(['abc'], { type: 'image/webp' }));

    const [withName, fromBlob] = sent.map((s) => s.init.body as FormData);
    expect(sent[0]!.url).toBe('https://api.example.test/api/v1/upload');
    expect(sent[0]!.init.headers).not.toHaveProperty('Content-Type'); // fetch adds the boundary
    const part = withName!.get('image') as File;
    expect(part.name).toBe('cat.png');
    expect(part.type).toBe('image/png');
    expect([...new Uint8Array(await part.arrayBuffer())]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    const blobPart = fromBlob!.get('image') as File;
    expect(blobPart.name).toBe('image');
    expect(blobPart.type).toBe('image/webp');
    expect(await blobPart.text()).toBe('abc');
  });

  it('uploads files over 4 MB straight to storage: presigned form, file last, no API key to storage', async () => {
    const slot = {
      upload_id: 'upl_0123',
      upload_url: 'https://bucket.storage.test/',
      fields: { key: 'incoming/acc/upl_0123', Policy: 'p', 'Content-Type': 'image/*' },
      max_bytes: 10485760,
      expires_at: '2026-11-21T17:15:00.000Z',
    };
    const published = { url: 'https://media/uploads/x.png', content_type: 'image/png', size: 4_000_001 };
    const { fetch, sent } = fakeFetch(ok(slot), new Response(null, { status: 204 }), ok(published));
    const big = new Uint8Array(4_000_001);
    await expect(client(fetch).uploadImage(big, { filename: 'big.png' })).resolves.toEqual(published);

    expect(sent.map((s) => `${s.init.method} ${s.url}`)).toEqual([
      'POST https://api.example.test/api/v1/uploads',
      'POST https://bucket.storage.test/',
      'POST https://api.example.test/api/v1/uploads/upl_0123/complete',
    ]);
    expect(sent[1]!.init.headers).toEqual({});
    const form = sent[1]!.init.body as FormData;
    expect([...form.keys()]).toEqual(['key', 'Policy', 'Content-Type', 'file']);
    expect(form.get('Content-Type')).toBe('image/*');
    expect((form.get('file') as File).size).toBe(4_000_001);
    expect((form.get('file') as File).name).toBe('big.png');
  });

  it('via chooses the path whatever the size', async () => {
    const published = { url: 'u', content_type: 'image/png', size: 1 };
    const forced = fakeFetch(ok(published));
    await client(forced.fetch).uploadImage(new Uint8Array(5_000_000), { via: 'multipart' });
    expect(forced.sent.map((s) => s.url)).toEqual(['https://api.example.test/api/v1/upload']);

    const slot = { upload_id: 'upl_1', upload_url: 'https://bucket.storage.test/', fields: {}, max_bytes: 1, expires_at: '' };
    const direct = fakeFetch(ok(slot), new Response(null, { status: 204 }), ok(published));
    await client(direct.fetch).uploadImage(new Uint8Array(3), { via: 'direct' });
    expect(direct.sent).toHaveLength(3);
  });

  it("storage's XML refusal becomes an ApiError; a 503 from storage is retried", async () => {
    const slot = { upload_id: 'upl_1', upload_url: 'https://bucket.storage.test/', fields: {}, max_bytes: 1, expires_at: '' };
    const xml = (status: number, code: string, message: string) =>
      new Response(`<?xml version="1.0"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`, {
        status,
        headers: { 'Content-Type': 'application/xml', 'x-amz-request-id': 'amz-1' },
      });
    const tooLarge = fakeFetch(ok(slot), xml(400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size'));
    const error = await rejection(client(tooLarge.fetch).uploadImage(new Uint8Array(3), { via: 'direct' }));
    expect(error).toMatchObject({ code: 'payload_too_large', status: 400, requestId: 'amz-1' });
    expect(error.message).toBe(
      'Storage refused the upload (POST https://bucket.storage.test/: HTTP 400, EntityTooLarge: Your proposed upload exceeds the maximum allowed size).',
    );

    const published = { url: 'u', content_type: 'image/png', size: 3 };
    const slow = fakeFetch(ok(slot), xml(503, 'SlowDown', 'Reduce your request rate'), new Response(null, { status: 204 }), ok(published));
    const retrying = client(slow.fetch, { retry: { maxRetries: 1 }, sleep: async () => {} });
    await expect(retrying.uploadImage(new Uint8Array(3), { via: 'direct' })).resolves.toEqual(published);
    expect(slow.sent.map((s) => s.url)).toEqual([
      'https://api.example.test/api/v1/uploads',
      'https://bucket.storage.test/',
      'https://bucket.storage.test/',
      'https://api.example.test/api/v1/uploads/upl_1/complete',
    ]);
  });

  it('needs an API key', () => {
    expect(() => new VidgenClient({ apiKey: ' ' })).toThrow(/apiKey is required/);
  });
});

describe('ApiError from the API envelope', () => {
  it('carries code, message, status, X-Request-Id and Retry-After', async () => {
    const { fetch } = fakeFetch(
      envelope(
        429,
        { data: null, error: { message: 'Too many requests.', code: 'rate_limit_exceeded' } },
        { 'X-Request-Id': 'req-1', 'Retry-After': '7' },
      ),
    );
    const error = await rejection(client(fetch).getCredits());
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ApiError');
    expect(error).toMatchObject({ code: 'rate_limit_exceeded', message: 'Too many requests.', status: 429, requestId: 'req-1', retryAfter: 7 });
  });

  it.each([
    [400, 'validation_error', 'duration: must be at most 12 seconds'],
    [401, 'unauthorized', 'Missing or invalid API key.'],
    [403, 'insufficient_credits', 'Not enough credits.'],
    [404, 'not_found', 'No such video.'],
    [409, 'idempotency_conflict', 'Key reused.'],
    [502, 'upstream_error', 'The provider refused the job.'],
  ])('%i %s', async (status, code, message) => {
    const { fetch } = fakeFetch(envelope(status, { data: null, error: { message, code } }, { 'X-Request-Id': 'r' }));
    expect(await rejection(client(fetch).getVideo('vid_1'))).toMatchObject({ status, code, message, requestId: 'r', retryAfter: undefined });
  });
});

describe('ApiError from answers that are not the envelope', () => {
  it.each([
    [502, 'upstream_error'],
    [503, 'upstream_error'],
    [504, 'upstream_error'],
    [500, 'internal_error'],
    [404, 'internal_error'],
    [200, 'internal_error'],
    [429, 'rate_limit_exceeded'],
  ])('an HTML page with status %i is %s, with a message that says what came back', async (status, code) => {
    const { fetch } = fakeFetch(html(status));
    const error = await rejection(client(fetch).getCredits());
    expect(error).toMatchObject({ status, code, requestId: undefined });
    expect(error.message).toContain(`HTTP ${status}`);
    expect(error.message).toContain('text/html');
    expect(error.message).toContain("not the API's JSON envelope");
    expect(error.message).toContain('GET https://api.example.test/api/v1/credits');
    expect(error.message).toContain('<h1>502 Bad Gateway</h1>');
  });

  it('bare JSON from a gateway ({"message":"Unauthorized"}) and empty bodies are not mistaken for the envelope', async () => {
    const bare = await rejection(client(fakeFetch(envelope(401, { message: 'Unauthorized' })).fetch).getCredits());
    expect(bare).toMatchObject({ code: 'internal_error', status: 401 });
    expect(bare.message).toContain('{"message":"Unauthorized"}');

    const empty = await rejection(client(fakeFetch(new Response(null, { status: 502 })).fetch).getCredits());
    expect(empty).toMatchObject({ code: 'upstream_error', status: 502 });
    expect(empty.message).toContain('no content type');

    const halfEnvelope = envelope(500, { data: null, error: { code: 'internal_error' } }, { 'X-Request-Id': 'abc' });
    expect(await rejection(client(fakeFetch(halfEnvelope).fetch).getCredits())).toMatchObject({ code: 'internal_error', requestId: 'abc' });
  });

  it('a long body is cut short in the message', async () => {
    const error = await rejection(client(fakeFetch(html(500, `<p>${'x'.repeat(5000)}</p>`)).fetch).getCredits());
    expect(error.message.length).toBeLessThan(500);
  });

  it('readEnvelope returns data for a 200 envelope', () => {
    const response = new Response('{"data":{"a":1},"error":null}', { status: 200 });
    expect(readEnvelope(response, '{"data":{"a":1},"error":null}')).toEqual({ a: 1 });
  });
});

describe('network failures', () => {
  it('become ApiError network_error with status 0 and the cause', async () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    const failure = new TypeError('fetch failed', { cause });
    const error = await rejection(client(fakeFetch(failure).fetch).getCredits());
    expect(error).toMatchObject({ code: 'network_error', status: 0, requestId: undefined });
    expect(error.message).toBe('Could not reach GET https://api.example.test/api/v1/credits: connect ECONNREFUSED 127.0.0.1:9.');
    expect(error.cause).toBe(failure);
  });

  it('a request that takes longer than timeoutMs is a network_error', async () => {
    const hanging: FetchLike = (_url, init) =>
      new Promise((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(init.signal!.reason)));
    const error = await rejection(client(hanging, { timeoutMs: 50 }).getCredits());
    expect(error).toMatchObject({ code: 'network_error', status: 0 });
    expect(error.message).toBe('No answer from GET https://api.example.test/api/v1/credits within 50 ms.');
  });

  it("aborting the caller's signal rejects with its reason, not an ApiError", async () => {
    const hanging: FetchLike = (_url, init) =>
      new Promise((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(new TypeError('aborted'))));
    const controller = new AbortController();
    const reason = new Error('user gave up');
    const pending = client(hanging).getCredits({ signal: controller.signal });
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('3')).toBe(3);
    expect(parseRetryAfter(' 0 ')).toBe(0);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter('-1')).toBeUndefined();
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
    expect(parseRetryAfter(inTenSeconds)).toBeGreaterThanOrEqual(9);
    expect(parseRetryAfter(inTenSeconds)).toBeLessThanOrEqual(11);
    expect(parseRetryAfter(new Date(Date.now() - 60_000).toUTCString())).toBe(0);
  });
});
