import { createHash } from 'node:crypto';
import sharp from 'sharp';
import type { LocalStack } from '#bin/local-stack/stack';
import { CATALOGUE, videoPrice } from '#domain/catalogue/catalogue';
import { isRead, recordDynamoCalls, type DynamoCall } from '#test-support/dynamo-calls';
import { balanceAndLedger, call, startTestApi, waitForFinal, post } from '#test-support/local-api';
import { newAccount } from '#test-support/accounts';

/**
 * GET /models, POST /quote and the parameters seed, negative_prompt and end_image_url, over
 * real HTTP on the local stack with the simulated provider rendering real files.
 */
jest.setTimeout(90_000);

let stack: LocalStack;
type Json = Record<string, any>;

beforeAll(async () => {
  stack = await startTestApi({ SIM_DELAY_SECONDS: '0', PROVIDER: 'simulated' });
});
afterAll(async () => {
  await stack.stop();
});

/** The exact bytes of an answer's body (the request id travels in a header, not here). */
async function rawBody(key: string, path: string, body: string, contentType = 'application/json') {
  const response = await fetch(`${stack.baseUrl}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': contentType },
    body,
  });
  return { status: response.status, text: await response.text() };
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function putImage(name: string, rgb: { r: number; g: number; b: number }): Promise<string> {
  const png = await sharp({ create: { width: 64, height: 36, channels: 3, background: rgb } }).png().toBuffer();
  return stack.context.storage.put(`uploads/${name}.png`, png, 'image/png');
}

describe('what an endpoint reads (a counting middleware on the table client the handlers share)', () => {
  /** The handler's calls: the authorizer's key lookup is its own (cached on AWS). */
  const handlerCalls = (calls: DynamoCall[]) => calls.filter((recorded) => recorded.keyPrefix !== 'APIKEY');

  it('GET /models reads nothing but counts the request in its rate window', async () => {
    const { key } = await newAccount(stack, { credits: 0, paid: false });
    const calls = handlerCalls(await recordDynamoCalls(stack.context.db, () => call(stack.baseUrl, '/models', { key })));
    expect(calls).toEqual([{ operation: 'UpdateItem', keyPrefix: 'RATE' }]);
  });

  it('POST /quote reads the account once; a start reads nothing before its transaction, whose conditions are the same rules', async () => {
    const { key } = await newAccount(stack, { credits: 100, paid: false });
    const body = { prompt: 'a lighthouse', duration: 3 };
    const quote = handlerCalls(await recordDynamoCalls(stack.context.db, () => post(stack, key, '/quote', { kind: 'video', ...body })));
    let videoId = '';
    const start = handlerCalls(
      await recordDynamoCalls(stack.context.db, async () => (videoId = (await post(stack, key, '/generate', body)).body.data!.video_id)),
    );
    // The start's first write other than the rate counter is its one transaction (design 32, 5.2),
    // and nothing is read before it: balance and access are its conditions.
    const firstWrite = start.findIndex((recorded) => !isRead(recorded) && recorded.keyPrefix !== 'RATE');
    expect(start[firstWrite]?.operation).toBe('TransactWriteItems');
    // (The first route's circuit, on a cache miss, is read alongside it, sent just before it.)
    expect(start.slice(0, firstWrite).filter((recorded) => isRead(recorded) && recorded.keyPrefix !== 'CIRCUIT')).toEqual([]);

    expect(quote).toEqual([{ operation: 'UpdateItem', keyPrefix: 'RATE' }, { operation: 'GetItem', keyPrefix: 'ACCOUNT' }]);
    await waitForFinal(stack, key, `/videos/${videoId}`);
  });
});

describe('GET /models', () => {
  it('lists every model of the catalogue with its price, defaults, allowed values and capabilities', async () => {
    const { key } = await newAccount(stack, { credits: 0, paid: false });
    const reply = await call<{ models: Json[] }>(stack.baseUrl, '/models', { key });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-ratelimit-limit')).toBe('1000');
    const models = reply.body.data!.models;
    expect(models.map((model) => model.id)).toEqual(CATALOGUE.map((entry) => entry.id));
    expect(models.find((model) => model.id === 'vid-2-0')).toEqual({
      id: 'vid-2-0',
      kind: 'video',
      name: 'Standard 1.0 video model',
      subscription_required: true,
      pricing: { unit: 'second', credits_per_unit: 7.5, rounding: 'up_per_task' },
      defaults: { generation_type: 'text_to_video', aspect_ratio: '16:9', resolution: '720p', duration: 5 },
      parameters: {
        aspect_ratio: ['16:9', '9:16', '1:1', '4:3', '3:4', '21:9'],
        resolution: ['480p', '720p', '1080p'],
        duration: { min: 3, max: 12 },
      },
      capabilities: { image_to_video: true, end_image: true, seed: true, negative_prompt: true, reference_images: false },
    });
    expect(models.find((model) => model.id === 'image-2')).toMatchObject({
      kind: 'image',
      pricing: { unit: 'image', credits_per_unit: 5, rounding: 'up_per_task' },
      defaults: { aspect_ratio: '1:1', resolution: '1k', output_format: 'png' },
      parameters: { output_format: ['png', 'jpg', 'webp'] },
      capabilities: { image_to_video: false, end_image: false, reference_images: true },
    });
    // The listed price, rounded up per task, is what a start charges.
    for (const model of models.filter((entry) => entry.kind === 'video')) {
      expect(Math.ceil(model.pricing.credits_per_unit * 5)).toBe(videoPrice(model.id, 5));
    }
  });
});

describe('invalid bodies: the start and its quote answer the same 400, byte for byte', () => {
  let key: string;
  /** Our own files, known once the stack runs: the bodies below name them by these tokens. */
  const urls: Record<string, string> = {};
  beforeAll(async () => {
    ({ key } = await newAccount(stack, { credits: 1000 }));
    urls.NOT_AN_IMAGE = await stack.context.storage.put('videos/e2e-not-an-image.mp4', Buffer.from('\0\0\0\x20ftypisom'), 'video/mp4');
    urls.OUR_IMAGE = await putImage('e2e-first', { r: 250, g: 20, b: 20 });
  });
  const withUrls = (text: string) => text.replace(/NOT_AN_IMAGE|OUR_IMAGE/g, (token) => urls[token]!);

  const PRIVATE_ADDRESS = 'http://10.0.0.7/last.png';
  const i2v = () => ({ prompt: 'x', generation_type: 'image_to_video', image_url: 'OUR_IMAGE', duration: 3 });

  // [name, path, body, field the message names]; a string body is sent as it is.
  const cases = (): Array<[string, '/generate' | '/generate-image', unknown, string]> => [
    ['seed -1', '/generate', { prompt: 'x', seed: -1 }, 'seed'],
    ['seed 2^32', '/generate', { prompt: 'x', seed: 2 ** 32 }, 'seed'],
    ['seed 1.5', '/generate', { prompt: 'x', seed: 1.5 }, 'seed'],
    ['seed "7"', '/generate', { prompt: 'x', seed: '7' }, 'seed'],
    ['image seed -1', '/generate-image', { prompt: 'x', seed: -1 }, 'seed'],
    ['image seed "7"', '/generate-image', { prompt: 'x', seed: '7' }, 'seed'],
    ['negative_prompt empty', '/generate', { prompt: 'x', negative_prompt: '' }, 'negative_prompt'],
    ['negative_prompt blank', '/generate', { prompt: 'x', negative_prompt: '   ' }, 'negative_prompt'],
    ['negative_prompt 2001 characters', '/generate', { prompt: 'x', negative_prompt: 'n'.repeat(2001) }, 'negative_prompt'],
    ['image negative_prompt 2001 characters', '/generate-image', { prompt: 'x', negative_prompt: 'n'.repeat(2001) }, 'negative_prompt'],
    ['end_image_url with text_to_video', '/generate', { prompt: 'x', end_image_url: 'https://example.com/z.png' }, 'end_image_url'],
    ['end_image_url on a model without end_image', '/generate', { ...i2v(), model: 'vid-2-0-fast', end_image_url: 'https://example.com/z.png' }, 'end_image_url'],
    ['end_image_url not a URL', '/generate', { ...i2v(), end_image_url: 'last.png' }, 'end_image_url'],
    ['end_image_url at a private address', '/generate', { ...i2v(), end_image_url: PRIVATE_ADDRESS }, 'end_image_url'],
    ['end_image_url not an image', '/generate', { ...i2v(), end_image_url: 'NOT_AN_IMAGE' }, 'end_image_url'],
    // The start's own invalid bodies, as before this work.
    ['no prompt', '/generate', { duration: 5 }, 'prompt'],
    ['blank prompt', '/generate', { prompt: '  ' }, 'prompt'],
    ['image-2 on /generate', '/generate', { prompt: 'x', model: 'image-2' }, 'model'],
    ['duration 5.5', '/generate', { prompt: 'x', duration: 5.5 }, 'duration'],
    ['duration "5"', '/generate', { prompt: 'x', duration: '5' }, 'duration'],
    ['aspect ratio', '/generate', { prompt: 'x', aspect_ratio: '2:1' }, 'aspect_ratio'],
    ['image_url with text_to_video', '/generate', { prompt: 'x', image_url: 'https://example.com/a.png' }, 'image_url'],
    ['image_to_video without image_url', '/generate', { prompt: 'x', generation_type: 'image_to_video' }, 'image_url'],
    ['image_url at a private address', '/generate', { ...i2v(), image_url: PRIVATE_ADDRESS }, 'image_url'],
    ['image resolution', '/generate-image', { prompt: 'x', resolution: '8k' }, 'resolution'],
    ['image output_format', '/generate-image', { prompt: 'x', output_format: 'gif' }, 'output_format'],
    ['image images empty', '/generate-image', { prompt: 'x', images: [] }, 'images'],
    ['image images not URLs', '/generate-image', { prompt: 'x', images: ['nope'] }, 'images.0'],
    ['a JSON array', '/generate', '[1]', 'body'],
    ['malformed JSON', '/generate', '{"prompt": ', 'body'],
  ];

  it('covers every case', () => expect(cases().length).toBeGreaterThan(25));

  it.each(cases().map(([name, path, , field]) => [name, path, field]))('%s (%s): 400 naming %s, same bytes from /quote, nothing charged', async (name, path) => {
    const [, , body] = cases().find(([candidate]) => candidate === name)!;
    const kind = path === '/generate' ? 'video' : 'image';
    const text = withUrls(typeof body === 'string' ? body : JSON.stringify(body));
    const quoted = withUrls(typeof body === 'string' ? body : JSON.stringify({ kind, ...(body as object) }));
    const before = (await call<{ credits: number }>(stack.baseUrl, '/credits', { key })).body.data!.credits;

    const start = await rawBody(key, path, text);
    const quote = await rawBody(key, '/quote', quoted);

    expect(start.status).toBe(400);
    const { error } = JSON.parse(start.text) as { error: { code: string; message: string } };
    expect(error.code).toBe('validation_error');
    const field = cases().find(([candidate]) => candidate === name)![3];
    if (field !== 'body') expect(error.message.startsWith(`${field}: `)).toBe(true);
    expect(quote).toEqual(start);
    expect((await call<{ credits: number }>(stack.baseUrl, '/credits', { key })).body.data!.credits).toBe(before);
  });

  it('a wrong Content-Type gets the same 400 from the start and the quote', async () => {
    const start = await rawBody(key, '/generate', '{"prompt":"x"}', 'text/plain');
    const quote = await rawBody(key, '/quote', '{"kind":"video","prompt":"x"}', 'text/plain');
    expect(start.status).toBe(400);
    expect(quote).toEqual(start);
  });

  it('a quote without a kind, or with another, is a 400 naming kind', async () => {
    for (const kind of [undefined, 'audio']) {
      const reply = await post(stack, key, '/quote', { prompt: 'x', ...(kind && { kind }) });
      expect(reply.status).toBe(400);
      expect(reply.body.error).toEqual({ code: 'validation_error', message: 'kind: must be one of video, image' });
    }
  });
});

describe('POST /quote', () => {
  it('prices a start, which then charges exactly the quoted credits; nothing is charged or made by the quote', async () => {
    const { accountId, key } = await newAccount(stack, { credits: 100 });
    const body = { prompt: 'a kite over the dunes', model: 'vid-2-0', duration: 5, resolution: '480p' };
    const quote = await post(stack, key, '/quote', { kind: 'video', ...body });
    expect(quote.status).toBe(200);
    expect(quote.body.data).toEqual({ kind: 'video', model: 'vid-2-0', credits: 38, balance: 100, can_start: true, reason: null });
    expect(await balanceAndLedger(stack, accountId)).toEqual({ balance: 100, ledger: 100 });
    expect((await call<Json>(stack.baseUrl, '/videos', { key })).body.data!.pagination.total).toBe(0);

    const started = await post(stack, key, '/generate', body);
    expect(started.body.data).toMatchObject({ status: 'processing', credits_used: quote.body.data!.credits });
    expect((await balanceAndLedger(stack, accountId)).balance).toBe(100 - 38);

    const tooDear = await post(stack, key, '/quote', { kind: 'video', ...body, duration: 12 });
    expect(tooDear.body.data).toEqual({ kind: 'video', model: 'vid-2-0', credits: 90, balance: 62, can_start: false, reason: 'insufficient_credits' });
    const refused = await post(stack, key, '/generate', { ...body, duration: 12 });
    expect(refused.status).toBe(403);
    expect(refused.body.error!.code).toBe('insufficient_credits');
    await waitForFinal(stack, key, `/videos/${started.body.data!.video_id}`);
  });

  it('names the first check a start would fail, in the start\'s order: paid access before credits', async () => {
    const { key } = await newAccount(stack, { credits: 0, paid: false });
    const video = await post(stack, key, '/quote', { kind: 'video', prompt: 'x', model: 'vid-2-0-fast' });
    expect(video.body.data).toEqual({ kind: 'video', model: 'vid-2-0-fast', credits: 25, balance: 0, can_start: false, reason: 'paid_access_required' });
    const image = await post(stack, key, '/quote', { kind: 'image', prompt: 'x' });
    expect(image.body.data).toEqual({ kind: 'image', model: 'image-2', credits: 5, balance: 0, can_start: false, reason: 'paid_access_required' });
    const lite = await post(stack, key, '/quote', { kind: 'video', prompt: 'x' });
    expect(lite.body.data).toEqual({ kind: 'video', model: 'vid-1-5-pro', credits: 25, balance: 0, can_start: false, reason: 'insufficient_credits' });
    // And the starts agree.
    expect((await post(stack, key, '/generate', { prompt: 'x', model: 'vid-2-0-fast' })).body.error!.code).toBe('paid_access_required');
    expect((await post(stack, key, '/generate', { prompt: 'x' })).body.error!.code).toBe('insufficient_credits');
  });
});

describe('seed, negative_prompt and end_image_url', () => {
  it('the same seed and parameters give byte-identical MP4s; the views echo each parameter', async () => {
    const { key } = await newAccount(stack, { credits: 200, paid: false });
    const body = { prompt: 'a paper lantern rising', duration: 3, resolution: '480p', seed: 4_294_967_295, negative_prompt: '  smoke  ' };
    const [first, second] = await Promise.all([post(stack, key, '/generate', body), post(stack, key, '/generate', body)]);
    expect(first.body.data).toMatchObject({ seed: 4_294_967_295, negative_prompt: 'smoke', end_image_url: null });
    const finals = await Promise.all(
      [first, second].map((started) => waitForFinal<Json>(stack, key, `/videos/${started.body.data!.video_id}`)),
    );
    expect(finals.map((final) => final.body.data!.status)).toEqual(['completed', 'completed']);
    expect(finals[0]!.body.data).toMatchObject({ seed: 4_294_967_295, negative_prompt: 'smoke' });
    const [a, b] = await Promise.all(finals.map(async (final) => sha256(Buffer.from(await (await fetch(final.body.data!.video_url)).arrayBuffer()))));
    expect(b).toBe(a);

    const unseeded = await post(stack, key, '/generate', { prompt: 'a paper lantern rising', duration: 3, resolution: '480p' });
    expect(unseeded.body.data).toMatchObject({ seed: null, negative_prompt: null, end_image_url: null });
    await waitForFinal(stack, key, `/videos/${unseeded.body.data!.video_id}`);
  });

  it('a video with end_image_url completes and echoes it; an image task echoes its seed and negative prompt', async () => {
    const { key } = await newAccount(stack, { credits: 200 });
    const first = await putImage('e2e-start', { r: 250, g: 140, b: 0 });
    const last = await putImage('e2e-end', { r: 0, g: 128, b: 128 });
    const started = await post(stack, key, '/generate', { prompt: 'dawn to dusk', generation_type: 'image_to_video', image_url: first, end_image_url: last, duration: 3, resolution: '480p' });
    expect(started.status).toBe(200);
    expect(started.body.data).toMatchObject({ image_url: first, end_image_url: last, seed: null });
    const final = await waitForFinal<Json>(stack, key, `/videos/${started.body.data!.video_id}`);
    expect(final.body.data).toMatchObject({ status: 'completed', end_image_url: last });

    const image = await post(stack, key, '/generate-image', { prompt: 'a teapot', seed: 0, negative_prompt: 'steam' });
    expect(image.body.data).toMatchObject({ seed: 0, negative_prompt: 'steam' });
    const finalImage = await waitForFinal<Json>(stack, key, `/images/${image.body.data!.image_id}`);
    expect(finalImage.body.data).toMatchObject({ status: 'completed', seed: 0, negative_prompt: 'steam' });
  });
});
