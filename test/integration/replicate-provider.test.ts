import {
  type ImageJob,
  ProviderUnavailableError,
  type ResultOutcome,
  SubmissionUnknownError,
  type VideoJob,
} from '#domain/providers/provider';
import { parseModelMap } from '#providers/replicate/model-map';
import { ReplicateProvider } from '#providers/replicate/replicate-provider';
import { type FakeReplicate, type Misbehaviour, startFakeReplicate } from '#test-support/fake-replicate';
import { IMAGE_JOB, VIDEO_JOB } from '#test-support/jobs';

const TOKEN = 'r8_TopSecretToken_0123456789';
const VERSION = 'ab12'.repeat(16);
/** Generous, so that a loaded machine never times out a test that expects an answer. */
const TIMEOUT_MS = 5000;
/** For the timeout tests: the fake's slow answers take SLOW_MS. */
const SHORT_TIMEOUT_MS = 200;
const SLOW_MS = 1000;

/** vid-2-0 is left out on purpose: a job for it finds no mapping. */
const models = parseModelMap({
  'vid-1-5-pro': {
    model: 'bytedance/seedance-1-lite',
    input: {
      prompt: '{{prompt}}',
      image: '{{image_url}}',
      duration: '{{duration}}',
      resolution: '{{resolution}}',
      aspect_ratio: '{{aspect_ratio}}',
      camera_fixed: false,
    },
  },
  'vid-2-0-fast': {
    version: VERSION,
    input: { prompt: '{{prompt}}', duration: '{{duration}}', mode: '{{generation_type}}' },
  },
  'image-2': {
    model: 'bytedance/seedream-4',
    input: {
      prompt: '{{prompt}}',
      image_input: '{{images}}',
      size: { from: 'resolution', map: { '1k': '1K', '2k': '2K', '4k': '4K' } },
      aspect_ratio: '{{aspect_ratio}}',
      output_format: '{{output_format}}',
      max_images: 1,
    },
  },
});

const videoJob: VideoJob = VIDEO_JOB;
const imageJob: ImageJob = {
  ...IMAGE_JOB,
  resolution: '2k',
  aspectRatio: '4:3',
  outputFormat: 'webp',
  images: ['https://example.com/ref-1.png', 'https://example.com/ref-2.png'],
};

let fake: FakeReplicate;
let provider: ReplicateProvider;
/** The same provider with a short timeout. */
let impatient: ReplicateProvider;

beforeEach(async () => {
  fake = await startFakeReplicate({ apiToken: TOKEN });
  provider = new ReplicateProvider({ baseUrl: fake.baseUrl, apiToken: TOKEN, timeoutMs: TIMEOUT_MS, models });
  impatient = new ReplicateProvider({ baseUrl: fake.baseUrl, apiToken: TOKEN, timeoutMs: SHORT_TIMEOUT_MS, models });
});

afterEach(async () => {
  await fake.close();
});

/** Awaits a ProviderUnavailableError (failing if the call succeeds) whose message hides the token. */
async function expectUnavailable(promise: Promise<unknown>): Promise<ProviderUnavailableError> {
  await expect(promise).rejects.toBeInstanceOf(ProviderUnavailableError);
  const error = (await promise.catch((e: unknown) => e)) as ProviderUnavailableError;
  expect(error.message).not.toContain(TOKEN);
  return error;
}

/** A create that certainly made nothing: unavailable, and not of unknown outcome. */
async function expectNothingCreated(promise: Promise<unknown>): Promise<ProviderUnavailableError> {
  const error = await expectUnavailable(promise);
  expect(error).not.toBeInstanceOf(SubmissionUnknownError);
  return error;
}

/** A create that may have made a job whose id we never read. */
async function expectOutcomeUnknown(promise: Promise<unknown>): Promise<SubmissionUnknownError> {
  const error = await expectUnavailable(promise);
  expect(error).toBeInstanceOf(SubmissionUnknownError);
  return error as SubmissionUnknownError;
}

function posts(): number {
  return fake.requests.filter((r) => r.method === 'POST').length;
}

function gets(): number {
  return fake.requests.filter((r) => r.method === 'GET').length;
}

/** Submits a video job and returns its prediction id, clearing the recorded requests. */
async function acceptedJobId(): Promise<string> {
  const outcome = await provider.submit(videoJob);
  if (outcome.type !== 'accepted') throw new Error(`expected accepted, got ${JSON.stringify(outcome)}`);
  fake.requests.length = 0;
  return outcome.jobId;
}

describe('submit', () => {
  it('creates a video prediction on the official model endpoint with the mapped input', async () => {
    const outcome = await provider.submit(videoJob);

    expect(outcome).toEqual({ type: 'accepted', jobId: expect.any(String) });
    expect(fake.requests).toHaveLength(1);
    const [request] = fake.requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/v1/models/bytedance/seedance-1-lite/predictions');
    expect(request?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request?.headers['content-type']).toBe('application/json');
    // duration stays a number; image (no image_url on text_to_video) is dropped.
    expect(request?.body).toStrictEqual({
      input: {
        prompt: 'A red fox running through fresh snow',
        duration: 5,
        resolution: '720p',
        aspect_ratio: '16:9',
        camera_fixed: false,
      },
    });
  });

  it('sends the first frame for image-to-video', async () => {
    await provider.submit({ ...videoJob, generationType: 'image_to_video', imageUrl: 'https://example.com/f.png' });
    expect(fake.requests[0]?.body).toMatchObject({ input: { image: 'https://example.com/f.png', duration: 5 } });
  });

  it('creates an image prediction with the reference images kept as an array', async () => {
    const outcome = await provider.submit(imageJob);

    expect(outcome.type).toBe('accepted');
    const [request] = fake.requests;
    expect(request?.path).toBe('/v1/models/bytedance/seedream-4/predictions');
    expect(request?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request?.body).toStrictEqual({
      input: {
        prompt: 'A lighthouse at dusk',
        image_input: ['https://example.com/ref-1.png', 'https://example.com/ref-2.png'],
        size: '2K',
        aspect_ratio: '4:3',
        output_format: 'webp',
        max_images: 1,
      },
    });
  });

  it('leaves image_input out of a text-to-image job', async () => {
    const { images: _, ...textToImage } = imageJob;
    await provider.submit(textToImage);
    expect(fake.requests[0]?.body).toStrictEqual({
      input: { prompt: 'A lighthouse at dusk', size: '2K', aspect_ratio: '4:3', output_format: 'webp', max_images: 1 },
    });
  });

  it('creates a version-based prediction on /v1/predictions', async () => {
    const outcome = await provider.submit({ ...videoJob, model: 'vid-2-0-fast', duration: 8 });

    expect(outcome.type).toBe('accepted');
    const [request] = fake.requests;
    expect(request?.path).toBe('/v1/predictions');
    expect(request?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request?.body).toStrictEqual({
      version: VERSION,
      input: { prompt: videoJob.prompt, duration: 8, mode: 'text_to_video' },
    });
  });

  it('throws ProviderUnavailableError for a model with no mapping, without calling Replicate', async () => {
    const error = await expectNothingCreated(provider.submit({ ...videoJob, model: 'vid-2-0' }));
    expect(error.message).toContain('"vid-2-0"');
    expect(error.reason).toBe('not_sent');
    expect(fake.requests).toHaveLength(0);
  });

  it('throws ProviderUnavailableError when a value map does not cover the job, without calling Replicate', async () => {
    const error = await expectNothingCreated(provider.submit({ ...imageJob, resolution: '8k' as never /* not a catalogue value: the map has no entry */ }));
    expect(error.message).toContain('input.size');
    expect(fake.requests).toHaveLength(0);
  });

  it.each([500, 502, 503])('throws ProviderUnavailableError on %i (failing: counted by the circuit) and does not retry the create', async (status) => {
    fake.behave({ kind: 'respond', status, body: { detail: 'upstream trouble' } }, 3);
    const error = await expectNothingCreated(provider.submit(videoJob));
    expect(error.reason).toBe('failing');
    expect(posts()).toBe(1);
  });

  it('passes on Retry-After from a 429 that has one', async () => {
    fake.behave({ kind: 'rate-limit', retryAfterSeconds: 7 }, 3);
    const error = await expectNothingCreated(provider.submit(videoJob));
    expect(error).toMatchObject({ reason: 'rate_limited', rateLimited: true, retryAfterSeconds: 7 });
    expect(posts()).toBe(1);
  });

  it.each([
    ['Request was throttled. Expected available in 1 second.', 1],
    ['Request was throttled. Your rate limit resets in ~30s.', 30],
    ['Request was throttled.', undefined],
  ])('reads a 429 without Retry-After, as Replicate documents it ("%s"), as a rate limit', async (detail, seconds) => {
    fake.behave({ kind: 'rate-limit', detail });
    const error = await expectNothingCreated(provider.submit(videoJob));
    expect(error).toMatchObject({ reason: 'rate_limited', rateLimited: true });
    expect(error.retryAfterSeconds).toBe(seconds);
  });

  it('throws SubmissionUnknownError when Replicate answers slower than the timeout: a job may exist', async () => {
    fake.behave({ kind: 'slow', delayMs: SLOW_MS });
    const started = Date.now();
    expect((await expectOutcomeUnknown(impatient.submit(videoJob))).reason).toBe('failing');
    expect(Date.now() - started).toBeLessThan(SLOW_MS);
    expect(posts()).toBe(1);
  });

  it('throws SubmissionUnknownError on a 2xx that is not JSON (an answer: not counted by the circuit)', async () => {
    fake.behave({ kind: 'malformed-json' });
    expect((await expectOutcomeUnknown(provider.submit(videoJob))).reason).toBe('unreadable');
  });

  it.each([
    ['no id', { status: 'starting' }],
    ['an empty id', { id: '', status: 'starting' }],
    ['a numeric id', { id: 42, status: 'starting' }],
    ['a JSON array', []],
  ])('throws SubmissionUnknownError on a 201 with %s', async (_, body) => {
    fake.behave({ kind: 'respond', status: 201, body });
    await expectOutcomeUnknown(provider.submit(videoJob));
  });

  it('accepts a created prediction with an unknown status: it exists, and polling will tell', async () => {
    fake.behave({ kind: 'unknown-status', status: 'queued' });
    expect(await provider.submit(videoJob)).toEqual({ type: 'accepted', jobId: expect.any(String) });
  });

  it('refuses on a 422 that is not a content refusal (nothing created: the start may fail over), with the detail in the message', async () => {
    fake.behave({
      kind: 'respond',
      status: 422,
      body: { title: 'Input validation failed', detail: '- input.duration: must be <= 12', status: 422 },
    });
    const error = await expectNothingCreated(provider.submit(videoJob));
    expect(error.reason).toBe('refused');
    expect(error.message).toContain('- input.duration: must be <= 12');
  });

  it('refuses on a 400 without a readable body', async () => {
    fake.behave({ kind: 'respond', status: 400, body: 'oops' });
    const error = await expectNothingCreated(provider.submit(videoJob));
    expect(error).toMatchObject({ reason: 'refused', message: expect.stringContaining('400') });
  });

  it.each([
    'The input prompt was flagged as sensitive (E005)',
    'NSFW content detected in prompt',
    'Prompt rejected by the safety checker',
  ])('rejects with content_rejected when a 422 says "%s"', async (detail) => {
    fake.behave({ kind: 'respond', status: 422, body: { detail } });
    expect(await provider.submit(videoJob)).toEqual({ type: 'rejected', code: 'content_rejected', message: detail });
  });

  it('rejects when the created prediction has already failed', async () => {
    fake.behave({ kind: 'respond', status: 201, body: { id: 'p1', status: 'failed', error: 'NSFW content detected' } });
    expect(await provider.submit(videoJob)).toEqual({
      type: 'rejected',
      code: 'content_rejected',
      message: 'NSFW content detected',
    });
  });

  it('rejects when the created prediction is already canceled', async () => {
    fake.behave({ kind: 'respond', status: 201, body: { id: 'p1', status: 'canceled', error: null } });
    expect(await provider.submit(videoJob)).toEqual({
      type: 'rejected',
      code: 'upstream_error',
      message: expect.any(String),
    });
  });

  it.each([401, 403, 404])('throws ProviderUnavailableError on %i (refused: an answer, not counted by the circuit)', async (status) => {
    fake.behave({ kind: 'respond', status, body: { detail: `bad token ${TOKEN}` } });
    expect((await expectNothingCreated(provider.submit(videoJob))).reason).toBe('refused');
    expect(posts()).toBe(1);
  });

  it('throws ProviderUnavailableError when the token is wrong', async () => {
    const wrong = new ReplicateProvider({ baseUrl: fake.baseUrl, apiToken: 'r8_wrong', timeoutMs: TIMEOUT_MS, models });
    const error = await expectNothingCreated(wrong.submit(videoJob));
    expect(error.message).toContain('401');
    expect(error.message).not.toContain('r8_wrong');
  });

  it('throws ProviderUnavailableError when the connection is reset, without retrying', async () => {
    fake.behave({ kind: 'reset' }, 3);
    await expectNothingCreated(provider.submit(videoJob));
    expect(posts()).toBe(1);
  });

  it('throws ProviderUnavailableError when nothing listens', async () => {
    const baseUrl = fake.baseUrl;
    await fake.close();
    fake = await startFakeReplicate({ apiToken: TOKEN }); // for afterEach
    const offline = new ReplicateProvider({ baseUrl, apiToken: TOKEN, timeoutMs: TIMEOUT_MS, models });
    await expectNothingCreated(offline.submit(videoJob));
  });

  it('keeps the token out of a refusal message that echoes it', async () => {
    fake.behave({ kind: 'respond', status: 422, body: { detail: `invalid field; token was ${TOKEN}` } });
    const error = await expectNothingCreated(provider.submit(videoJob));
    expect(error.message).toContain('invalid field; token was [redacted]');
  });

  it('keeps the token out of a content refusal that echoes it', async () => {
    fake.behave({ kind: 'respond', status: 422, body: { detail: `NSFW content detected; token was ${TOKEN}` } });
    expect(await provider.submit(videoJob)).toEqual({ type: 'rejected', code: 'content_rejected', message: 'NSFW content detected; token was [redacted]' });
  });
});

describe('fetchResult', () => {
  it('follows a video prediction from processing to completed with the output URL', async () => {
    const jobId = await acceptedJobId();

    expect(await provider.fetchResult(jobId)).toEqual({ type: 'processing', queuePosition: 0 });
    const outcome = await provider.fetchResult(jobId);

    expect(outcome).toEqual({ type: 'completed', outputUrls: [`${fake.baseUrl}/files/${jobId}.mp4`] });
    expect(fake.requests.map((r) => [r.method, r.path])).toEqual([
      ['GET', `/v1/predictions/${jobId}`],
      ['GET', `/v1/predictions/${jobId}`],
    ]);
    expect(fake.requests[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    // The output is served by the fake.
    const media = await fetch((outcome as Extract<ResultOutcome, { type: 'completed' }>).outputUrls[0] ?? '');
    expect(media.status).toBe(200);
    expect(media.headers.get('content-type')).toBe('video/mp4');
    await media.arrayBuffer();
  });

  it('reports starting as processing, with no place in a queue (Replicate gives none)', async () => {
    const jobId = await acceptedJobId();
    fake.setPredictionStatus(jobId, 'starting');
    expect(await provider.fetchResult(jobId)).toEqual({ type: 'processing' });
  });

  it('completes an image prediction with every URL of an array output', async () => {
    const outcome = await provider.submit(imageJob);
    if (outcome.type !== 'accepted') throw new Error('expected accepted');
    const urls = [`${fake.baseUrl}/files/${outcome.jobId}-0.png`, `${fake.baseUrl}/files/${outcome.jobId}-1.png`];
    fake.setPredictionStatus(outcome.jobId, 'succeeded', urls);

    expect(await provider.fetchResult(outcome.jobId)).toEqual({ type: 'completed', outputUrls: urls });
  });

  it('keeps only absolute http(s) URLs from the output', async () => {
    const jobId = await acceptedJobId();
    fake.setPredictionStatus(jobId, 'succeeded', [
      'https://replicate.delivery/a.png',
      '/files/relative.png',
      'ftp://example.com/b.png',
      42,
      null,
      'http://replicate.delivery/c.png',
    ]);
    expect(await provider.fetchResult(jobId)).toEqual({
      type: 'completed',
      outputUrls: ['https://replicate.delivery/a.png', 'http://replicate.delivery/c.png'],
    });
  });

  it.each([
    ['null', null],
    ['an empty array', []],
    ['an object', { video: 'https://replicate.delivery/a.mp4' }],
    ['a relative path', 'files/a.mp4'],
    ['plain text', 'done'],
    ['a number', 3],
  ])('fails with upstream_error when it succeeded with %s as output', async (_, output) => {
    const jobId = await acceptedJobId();
    fake.setPredictionStatus(jobId, 'succeeded', output);
    expect(await provider.fetchResult(jobId)).toEqual({
      type: 'failed',
      code: 'upstream_error',
      message: expect.any(String),
    });
  });

  it('fails with upstream_error and the error text when the prediction failed', async () => {
    const jobId = await acceptedJobId();
    fake.setPredictionStatus(jobId, 'failed', null, 'CUDA out of memory');
    expect(await provider.fetchResult(jobId)).toEqual({
      type: 'failed',
      code: 'upstream_error',
      message: 'CUDA out of memory',
    });
  });

  it.each([
    'NSFW content detected. Try running it again, or try a different prompt.',
    'Output flagged by the safety filter',
    'The output video was flagged as sensitive',
  ])('fails with content_rejected when the error says "%s"', async (error) => {
    const jobId = await acceptedJobId();
    fake.setPredictionStatus(jobId, 'failed', null, error);
    expect(await provider.fetchResult(jobId)).toEqual({ type: 'failed', code: 'content_rejected', message: error });
  });

  it('fails with a generic message when a failed prediction has no error text', async () => {
    const jobId = await acceptedJobId();
    fake.setPredictionStatus(jobId, 'failed', null, null);
    expect(await provider.fetchResult(jobId)).toEqual({
      type: 'failed',
      code: 'upstream_error',
      message: expect.stringMatching(/failed/),
    });
  });

  it('fails with upstream_error when the prediction was canceled', async () => {
    const jobId = await acceptedJobId();
    fake.setPredictionStatus(jobId, 'canceled');
    expect(await provider.fetchResult(jobId)).toEqual({
      type: 'failed',
      code: 'upstream_error',
      message: expect.stringContaining('canceled'),
    });
  });

  it('keeps the token out of a failure message that echoes it', async () => {
    const jobId = await acceptedJobId();
    fake.setPredictionStatus(jobId, 'failed', null, `auth ${TOKEN} rejected by a downstream service`);
    const outcome = await provider.fetchResult(jobId);
    expect(outcome).toEqual({
      type: 'failed',
      code: 'upstream_error',
      message: 'auth [redacted] rejected by a downstream service',
    });
  });

  it('throws ProviderUnavailableError on an unknown status', async () => {
    const jobId = await acceptedJobId();
    fake.behave({ kind: 'unknown-status', status: 'paused' });
    const error = await expectUnavailable(provider.fetchResult(jobId));
    expect(error.message).toContain('paused');
  });

  it('throws ProviderUnavailableError on a body that is not JSON', async () => {
    const jobId = await acceptedJobId();
    fake.behave({ kind: 'malformed-json' });
    await expectUnavailable(provider.fetchResult(jobId));
  });

  it('throws ProviderUnavailableError on a JSON answer without a status', async () => {
    const jobId = await acceptedJobId();
    fake.behave({ kind: 'respond', status: 200, body: { id: jobId } });
    await expectUnavailable(provider.fetchResult(jobId));
  });

  it('throws ProviderUnavailableError for an unknown prediction (404)', async () => {
    await expectUnavailable(provider.fetchResult('no-such-prediction'));
    expect(gets()).toBe(1);
  });

  it('escapes the job id in the path', async () => {
    await expectUnavailable(provider.fetchResult('../models/x'));
    expect(fake.requests[0]?.path).toBe('/v1/predictions/..%2Fmodels%2Fx');
  });

  it('passes on Retry-After from a 429, without retrying', async () => {
    const jobId = await acceptedJobId();
    fake.behave({ kind: 'rate-limit', retryAfterSeconds: 30 }, 2);
    const error = await expectUnavailable(provider.fetchResult(jobId));
    expect(error.retryAfterSeconds).toBe(30);
    expect(gets()).toBe(1);
  });

  it.each([401, 403])('throws ProviderUnavailableError on %i', async (status) => {
    const jobId = await acceptedJobId();
    fake.behave({ kind: 'respond', status, body: { detail: 'Unauthenticated' } });
    await expectUnavailable(provider.fetchResult(jobId));
  });

  it.each([500, 502, 503])('retries once after a %i and reads the prediction', async (status) => {
    const jobId = await acceptedJobId();
    fake.behave({ kind: 'respond', status, body: { detail: 'try again' } });
    expect(await provider.fetchResult(jobId)).toEqual({ type: 'processing', queuePosition: 0 });
    expect(gets()).toBe(2);
  });

  it.each([500, 502, 503])('throws ProviderUnavailableError after a %i twice', async (status) => {
    const jobId = await acceptedJobId();
    fake.behave({ kind: 'respond', status, body: { detail: 'down' } }, 2);
    await expectUnavailable(provider.fetchResult(jobId));
    expect(gets()).toBe(2);
  });

  it('retries once after a reset connection', async () => {
    const jobId = await acceptedJobId();
    fake.behave({ kind: 'reset' });
    expect(await provider.fetchResult(jobId)).toEqual({ type: 'processing', queuePosition: 0 });
    expect(gets()).toBe(2);
  });

  it('throws ProviderUnavailableError when the connection is reset twice', async () => {
    const jobId = await acceptedJobId();
    fake.behave({ kind: 'reset' }, 2);
    await expectUnavailable(provider.fetchResult(jobId));
    expect(gets()).toBe(2);
  });

  it('tries at most twice when a 5xx is followed by a reset', async () => {
    const jobId = await acceptedJobId();
    fake.behave({ kind: 'respond', status: 503 });
    fake.behave({ kind: 'reset' }, 2);
    await expectUnavailable(provider.fetchResult(jobId));
    expect(gets()).toBe(2);
  });

  it('throws ProviderUnavailableError within the budget when Replicate is slow', async () => {
    const jobId = await acceptedJobId();
    fake.behave({ kind: 'slow', delayMs: SLOW_MS }, 2);
    const started = Date.now();
    await expectUnavailable(impatient.fetchResult(jobId));
    expect(gets()).toBe(1);
    expect(Date.now() - started).toBeLessThan(SLOW_MS);
  });

  it('does not move a prediction along when the poll fails', async () => {
    const jobId = await acceptedJobId();
    fake.behave({ kind: 'malformed-json' });
    await expectUnavailable(provider.fetchResult(jobId));
    // The malformed answer never reached the prediction: the next read is its first step.
    expect(await provider.fetchResult(jobId)).toEqual({ type: 'processing', queuePosition: 0 });
  });
});

describe('error messages', () => {
  const misbehaviours: Array<[string, Misbehaviour]> = [
    ['500', { kind: 'respond', status: 500, body: { detail: TOKEN } }],
    ['401 echoing the token', { kind: 'respond', status: 401, body: { detail: `token ${TOKEN} is invalid` } }],
    ['429', { kind: 'rate-limit', retryAfterSeconds: 1 }],
    ['slow', { kind: 'slow', delayMs: SLOW_MS }],
    ['malformed JSON', { kind: 'malformed-json' }],
    ['reset', { kind: 'reset' }],
    ['unknown status', { kind: 'unknown-status', status: TOKEN }],
  ];

  it.each(misbehaviours)('never contain the API token (%s)', async (_, misbehaviour) => {
    fake.behave(misbehaviour);
    // An unknown status on a create is accepted; every other case here throws.
    const outcome = await impatient.submit(videoJob).catch((e: unknown) => e);
    if (outcome instanceof Error) expect(outcome.message).not.toContain(TOKEN);
    else expect(JSON.stringify(outcome)).not.toContain(TOKEN);

    fake.behave(misbehaviour, 2); // a 5xx or a reset is read twice
    const jobId = fake.addPrediction({ status: 'processing' }).id;
    await expectUnavailable(impatient.fetchResult(jobId));
  });
});
