import { buildAppContext, type AppContext } from '#app-context';
import type { InProcessCopyQueue } from '#adapters/copy-queues';
import type { Db } from '#adapters/dynamodb/dynamo-client';
import { loadConfig } from '#config';
import { createAccount } from '#domain/accounts/account-admin';
import { ProviderUnavailableError, SubmissionUnknownError, type CallbackRequest, type GenerationJob } from '#domain/providers/provider';
import { startTask } from '#domain/tasks/start-task';
import type { Task } from '#domain/tasks/task';
import { refreshTask } from '#domain/tasks/lifecycle/outcomes';
import { FalProvider } from '#providers/fal/fal-provider';
import { parseFalModelMap } from '#providers/fal/model-map';
import { FalWebhookVerifier } from '#providers/fal/webhook-signature';
import { refusal } from '#test-support/callback-receiver';
import { startFakeFal, type FakeFal } from '#test-support/fake-fal';
import { createTestDb, dropTestDb } from '#test-support/test-db';

/** The fal adapter against a fake fal queue on 127.0.0.1 (test/support/fake-fal.ts). */
jest.setTimeout(30_000);

const MODELS = parseFalModelMap({
  'vid-1-5-pro': { endpoint: 'fal-ai/seedance/v1/lite/text-to-video', input: { prompt: '{{prompt}}', duration: '{{duration}}' } },
  'image-2': { endpoint: 'fal-ai/seedream/v4/text-to-image', input: { prompt: '{{prompt}}' } },
});
const JOB: GenerationJob = {
  kind: 'video',
  taskId: 'vid_01JTEST',
  model: 'vid-1-5-pro',
  generationType: 'text_to_video',
  prompt: 'a heron',
  aspectRatio: '16:9',
  duration: 5,
  resolution: '480p',
};
const CALLBACK_URL = 'https://api.test/api/v1/provider-callbacks/fal/acc_1/vid_01JTEST?token=tok';

let fake: FakeFal;
let clock = Date.now();
beforeEach(async () => {
  fake = await startFakeFal();
  clock = Date.now();
});
afterEach(async () => fake.close());

function provider(timeoutMs = 2_000): FalProvider {
  const verifier = new FalWebhookVerifier({ fetchText: async () => (await fetch(fake.jwksUrl)).text(), now: () => clock });
  return new FalProvider({ baseUrl: fake.baseUrl, apiKey: fake.apiKey, timeoutMs, models: MODELS, verifier });
}

/** A webhook as our route hands it on: raw body, lower-case headers, and the query fal called us with. */
function webhook(requestId: string, options: { forge?: boolean; offsetSeconds?: number; app?: string } = {}): CallbackRequest {
  const body = fake.webhookBody(requestId);
  return { body, headers: fake.signedHeaders(requestId, body, options), query: { token: 'tok', fal_app: options.app ?? fake.requests.get(requestId)!.app } };
}

describe('submit', () => {
  it('queues the job with our callback URL as fal_webhook, naming its app, and follows it by status and result', async () => {
    const fal = provider();
    const outcome = await fal.submit(JOB, { callbackUrl: CALLBACK_URL });
    expect(outcome).toMatchObject({ type: 'accepted', callbacks: true });
    const [request] = [...fake.requests.values()];
    expect(outcome.type === 'accepted' && outcome.jobId).toBe(`fal-ai/seedance/requests/${request!.id}`);
    expect(request!.input).toEqual({ prompt: 'a heron', duration: 5 });
    expect(new URL(request!.webhook!).searchParams.get('fal_app')).toBe('fal-ai/seedance');
    expect(new URL(request!.webhook!).searchParams.get('token')).toBe('tok');

    const polled = await fal.submit(JOB);
    const jobId = polled.type === 'accepted' ? polled.jobId : '';
    // fal's queue position while IN_QUEUE (the fake answers 2), 0 once IN_PROGRESS.
    expect(await fal.fetchResult(jobId)).toEqual({ type: 'processing', progress: 0, queuePosition: 2 });
    expect(await fal.fetchResult(jobId)).toEqual({ type: 'processing', progress: 5, queuePosition: 0 });
    const done = await fal.fetchResult(jobId);
    expect(done).toEqual({ type: 'completed', outputUrls: [`${fake.baseUrl}/files/${jobId.split('/').pop()}.mp4`] });
  });

  it.each([
    ['a 503', { kind: 'respond', status: 503 } as const, 'failing'],
    ['a 401', { kind: 'respond', status: 401 } as const, 'refused'],
    ['a 422 that is not a content refusal', { kind: 'respond', status: 422 } as const, 'refused'],
    ['a 429 without Retry-After', { kind: 'rate-limit' } as const, 'rate_limited'],
    ['a reset connection', { kind: 'reset' } as const, 'failing'],
  ])('treats %s as nothing created (a start may fail over), for the circuit: %s', async (_, misbehaviour, reason) => {
    fake.behave(misbehaviour);
    const error = await provider().submit(JOB).then(() => undefined, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error).not.toBeInstanceOf(SubmissionUnknownError);
    expect(error).toMatchObject({ reason });
  });

  it('passes on a 429\'s Retry-After when fal sends one', async () => {
    fake.behave({ kind: 'rate-limit', retryAfterSeconds: 4 });
    await expect(provider().submit(JOB)).rejects.toMatchObject({ reason: 'rate_limited', rateLimited: true, retryAfterSeconds: 4 });
  });

  it('sends nothing for a model its map does not serve', async () => {
    await expect(provider().submit({ ...JOB, model: 'vid-2-0' })).rejects.toMatchObject({ reason: 'not_sent' });
    expect(fake.stats().creates + fake.stats().refusedCreates).toBe(0);
  });

  it('treats a timeout after sending as unknown (a job may exist), and a content refusal as the customer\'s answer', async () => {
    fake.behave({ kind: 'answer-lost', delayMs: 1_000 });
    await expect(provider(200).submit(JOB)).rejects.toBeInstanceOf(SubmissionUnknownError);
    expect(fake.stats().creates).toBe(1);

    fake.behave({ kind: 'respond', status: 422, body: { detail: [{ type: 'content_policy_violation', msg: 'flagged' }] } });
    expect(await provider().submit(JOB)).toMatchObject({ type: 'rejected', code: 'content_rejected' });
  });
});

describe('webhook signatures', () => {
  async function queued(): Promise<string> {
    const outcome = await provider().submit(JOB, { callbackUrl: CALLBACK_URL });
    return outcome.type === 'accepted' ? outcome.jobId.split('/').pop()! : '';
  }

  it('reads a genuine callback: the job it names and its outputs', async () => {
    const id = await queued();
    expect(await provider().readCallback(webhook(id), new Date(clock))).toEqual({
      jobId: `fal-ai/seedance/requests/${id}`,
      outcome: { type: 'completed', outputUrls: [`${fake.baseUrl}/files/${id}.mp4`] },
      messageId: `fal:${id}`,
    });
  });

  it('refuses a forged, a stale, an altered or a misaddressed callback', async () => {
    const id = await queued();
    const fal = provider();
    expect(await refusal(fal.readCallback(webhook(id, { forge: true }), new Date(clock)))).toBe('signature');
    expect(await refusal(fal.readCallback(webhook(id, { offsetSeconds: -301 }), new Date(clock)))).toBe('stale');
    const genuine = webhook(id);
    expect(await refusal(fal.readCallback({ ...genuine, body: genuine.body.replace('"OK"', '"ERROR"') }, new Date(clock)))).toBe('signature');
    expect(await refusal(fal.readCallback(webhook(id, { app: 'someone/else' }), new Date(clock)))).toBe('malformed');
  });

  it('follows a key rotation: a callback signed with a key added since is verified after one fetch of the key set', async () => {
    const id = await queued();
    const fal = provider();
    await fal.readCallback(webhook(id), new Date(clock));
    expect(fake.stats().jwksFetches).toBe(1);
    fake.rotateKey(true);
    // Within a minute of the last fetch, an unknown key is refused without asking fal again (forgeries cannot make us hammer it)...
    expect(await refusal(fal.readCallback(webhook(id), new Date(clock)))).toBe('signature');
    expect(fake.stats().jwksFetches).toBe(1);
    // ...after it, the set is fetched again and the new key verifies.
    clock += 61_000;
    expect((await fal.readCallback(webhook(id), new Date(clock))).jobId).toContain(id);
    expect(fake.stats().jwksFetches).toBe(2);
    // Cached from then on.
    await fal.readCallback(webhook(id), new Date(clock));
    expect(fake.stats().jwksFetches).toBe(2);
  });
});

describe('cancel', () => {
  it('cancels a queued request; its status then reads as failed, and a second cancel is harmless', async () => {
    const fal = provider();
    const outcome = await fal.submit(JOB);
    const jobId = outcome.type === 'accepted' ? outcome.jobId : '';
    await fal.cancel(jobId);
    expect(fake.requests.get(jobId.split('/').pop()!)?.status).toBe('CANCELED');
    expect(await fal.fetchResult(jobId)).toMatchObject({ type: 'failed', code: 'upstream_error' });
    await fal.cancel(jobId);
    expect(fake.stats().cancels).toBe(2);
  });
});

describe('on DynamoDB Local and s3rver, PROVIDER=fal', () => {
  let db: Db;
  beforeAll(async () => {
    db = await createTestDb();
  });
  afterAll(async () => {
    if (db) await dropTestDb(db);
  });

  it('copies a completed job\'s output into our storage', async () => {
    const context: AppContext = buildAppContext(
      loadConfig({
        TABLE_NAME: db.tableName,
        AWS_REGION: 'local',
        DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT!,
        S3_ENDPOINT: process.env.TEST_S3_ENDPOINT!,
        MEDIA_BUCKET: process.env.TEST_MEDIA_BUCKET ?? 'vidgen-test-media',
        PUBLIC_MEDIA_BASE_URL: 'http://127.0.0.1:1/media',
        OUTPUT_ALLOWED_ORIGINS: fake.baseUrl,
        PROVIDER: 'fal',
        FAL_BASE_URL: fake.baseUrl,
        FAL_JWKS_URL: fake.jwksUrl,
        FAL_KEY: fake.apiKey,
        FAL_MODELS: JSON.stringify({ 'vid-1-5-pro': { endpoint: 'fal-ai/seedance/v1/lite/text-to-video', input: { prompt: '{{prompt}}' } } }),
      }),
    );
    const { account } = await createAccount(context, { credits: 100 });
    const started = await startTask(context.lifecycle, account.accountId, { kind: 'video', params: { ...JOB, model: 'vid-1-5-pro' } });
    expect(started.provider).toMatchObject({ name: 'fal' });
    const deps = { ...context.lifecycle, settings: { ...context.lifecycle.settings, checkIntervalMs: 0 } };
    let task: Task = started;
    for (let attempt = 0; attempt < 10 && task.status === 'processing'; attempt += 1) {
      await refreshTask(deps, task);
      await (context.copyQueue as InProcessCopyQueue).drain();
      task = (await context.tasks.get(account.accountId, started.taskId))!;
    }
    expect(task.status).toBe('completed');
    expect(task.outputUrls?.[0]).toBe(`http://127.0.0.1:1/media/videos/${started.taskId}.mp4`);
    expect(fake.stats().resultReads).toBe(1);
  });
});
