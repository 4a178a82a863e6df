import {
  CallbackRejectedError,
  type CallbackRequest,
  type ProviderCallback,
  ProviderUnavailableError,
  SubmissionUnknownError,
} from '#domain/providers/provider';
import { parseModelMap } from '#providers/replicate/model-map';
import { ReplicateProvider } from '#providers/replicate/replicate-provider';
import { type ReceivedCallback, refusal, startCallbackReceiver } from '#test-support/callback-receiver';
import { type FakeReplicate, startFakeReplicate } from '#test-support/fake-replicate';
import { VIDEO_JOB } from '#test-support/jobs';

/**
 * Replicate webhooks end to end over real sockets: the adapter asks the fake for callbacks,
 * the fake sends them (signed, by time), a receiver on 127.0.0.1 hands each to readCallback
 * as our public route does.
 */

const TOKEN = 'r8_CallbackTestToken_0123456789';
const TIMEOUT_MS = 5000;
const models = parseModelMap({
  'vid-1-5-pro': { model: 'bytedance/seedance-1-lite', input: { prompt: '{{prompt}}', duration: '{{duration}}' } },
});
const videoJob = VIDEO_JOB;

let fake: FakeReplicate;
let receiver: Awaited<ReturnType<typeof startCallbackReceiver>>;
/** Knows the fake's webhook secret, read from the fake's API as an operator would. */
let provider: ReplicateProvider;
/** The same account without a webhook secret. */
let unsigned: ReplicateProvider;
/** What readCallback made of each callback the receiver got, in order. */
let read: Array<ProviderCallback | CallbackRejectedError>;
/** What the receiver answers after readCallback accepted a callback (a test may change it). */
let answerAccepted: (callback: Omit<ReceivedCallback, 'status'>) => number;
let callbackUrl: string;

async function fakeSecret(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}/v1/webhooks/default/secret`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  expect(response.status).toBe(200);
  const { key } = (await response.json()) as { key: string };
  return key;
}

function replicate(options: { webhookSecret?: string; timeoutMs?: number } = {}): ReplicateProvider {
  return new ReplicateProvider({ baseUrl: fake.baseUrl, apiToken: TOKEN, timeoutMs: options.timeoutMs ?? TIMEOUT_MS, models, ...options });
}

beforeEach(async () => {
  fake = await startFakeReplicate({ apiToken: TOKEN, startDelayMs: 30, completeDelayMs: 120, callbackRetryDelaysMs: [20, 20, 20] });
  provider = replicate({ webhookSecret: await fakeSecret(fake.baseUrl) });
  unsigned = replicate();
  read = [];
  answerAccepted = () => 204;
  receiver = await startCallbackReceiver({
    answer: async (callback) => {
      try {
        const { messageId, ...reported } = await provider.readCallback(callback.request, new Date());
        // The message id is the signed webhook-id (what a replay is recognised by).
        if (messageId !== callback.request.headers['webhook-id']) throw new Error(`message id ${messageId} is not the webhook-id`);
        read.push(reported);
        return answerAccepted(callback);
      } catch (error) {
        if (!(error instanceof CallbackRejectedError)) throw error;
        read.push(error);
        return 401;
      }
    },
  });
  callbackUrl = `${receiver.origin}/api/v1/provider-callbacks/replicate/acc_1/${videoJob.taskId}`;
  fake.requests.length = 0;
});

afterEach(async () => {
  await fake.close();
  await receiver.close();
});

/**
 * Restarts the fake with slower timers, for a test that must act on a prediction before its own
 * callbacks go out (a loaded machine easily spends the default 30 ms between two steps).
 */
async function slowFake(startDelayMs = 5_000, completeDelayMs = 10_000): Promise<void> {
  await fake.close();
  fake = await startFakeReplicate({ apiToken: TOKEN, startDelayMs, completeDelayMs, callbackRetryDelaysMs: [20, 20, 20] });
  provider = replicate({ webhookSecret: await fakeSecret(fake.baseUrl) });
}

async function submitted(by: ReplicateProvider = provider): Promise<string> {
  const outcome = await by.submit(videoJob, { callbackUrl });
  if (outcome.type !== 'accepted') throw new Error(`expected accepted, got ${JSON.stringify(outcome)}`);
  return outcome.jobId;
}


/** A genuine callback, as received, for a prediction that has completed. */
async function genuineCallback(): Promise<CallbackRequest> {
  await submitted();
  const [completed] = await receiver.waitFor(1, (c) => c.request.body.includes('"succeeded"'));
  if (!completed) throw new Error('no completed callback arrived');
  return completed.request;
}

describe('submit with a callback URL', () => {
  it('asks for start and completed webhooks when the adapter has a webhook secret', async () => {
    await submitted();
    expect(fake.requests[0]?.body).toStrictEqual({
      input: { prompt: videoJob.prompt, duration: 5 },
      webhook: callbackUrl,
      webhook_events_filter: ['start', 'completed'],
    });
  });

  it('asks for none without a webhook secret (they could not be verified)', async () => {
    await submitted(unsigned);
    expect(fake.requests[0]?.body).toStrictEqual({ input: { prompt: videoJob.prompt, duration: 5 } });
  });

  it('asks for none without a callback URL', async () => {
    await provider.submit(videoJob);
    expect(fake.requests[0]?.body).toStrictEqual({ input: { prompt: videoJob.prompt, duration: 5 } });
  });
});

describe('readCallback with the fake', () => {
  it('accepts the start and completed callbacks and reads them as a poll would', async () => {
    const jobId = await submitted();
    await fake.waitForCallbacks(2);
    const { received } = receiver;

    expect(received.map((r) => [r.status, r.path])).toEqual([
      [204, new URL(callbackUrl).pathname],
      [204, new URL(callbackUrl).pathname],
    ]);
    const completed = { jobId, outcome: { type: 'completed', outputUrls: [`${fake.baseUrl}/files/${jobId}.mp4`] } };
    expect(read).toHaveLength(2);
    expect(read).toEqual(expect.arrayContaining([{ jobId, outcome: { type: 'processing', queuePosition: 0 } }, completed]));
    // The same state read by a poll gives the same outcome.
    expect(await provider.fetchResult(jobId)).toEqual(completed.outcome);
    expect(fake.stats()).toMatchObject({ creates: 1, reads: 1, callbacksSent: 2, callbacksDropped: 0 });
  });

  it('reads a failed prediction exactly as fetchResult does (content refusal included)', async () => {
    await slowFake();
    const jobId = await submitted();
    fake.setPredictionStatus(jobId, 'failed', null, 'NSFW content detected in the output');
    const [callback] = await receiver.waitFor(1);

    expect(callback?.status).toBe(204);
    expect(read).toEqual([
      { jobId, outcome: { type: 'failed', code: 'content_rejected', message: 'NSFW content detected in the output' } },
    ]);
    expect(await provider.fetchResult(jobId)).toEqual((read[0] as ProviderCallback).outcome);
  });

  it('calls back completed (canceled) when a prediction is canceled, as Replicate does', async () => {
    await slowFake();
    const jobId = await submitted();
    await provider.cancel(jobId);
    await fake.waitForCallbacks(1);
    const [callback] = receiver.received;

    expect(callback?.status).toBe(204);
    expect(read).toEqual([{ jobId, outcome: { type: 'failed', code: 'upstream_error', message: expect.stringContaining('canceled') } }]);
    expect(fake.stats()).toMatchObject({ cancels: 1, callbacksSent: 1 });
  });

  it('loses the callbacks dropCallbacks asks for; polling still reads the state', async () => {
    fake.dropCallbacks(1);
    const jobId = await submitted();
    await fake.waitForCallbacks(1);
    const [callback] = receiver.received;

    expect(read).toEqual([{ jobId, outcome: { type: 'completed', outputUrls: [expect.any(String)] } }]);
    expect(callback?.status).toBe(204);
    expect(fake.stats()).toMatchObject({ callbacksSent: 1, callbacksDropped: 1 });
    expect(await provider.fetchResult(jobId)).toEqual({ type: 'completed', outputUrls: [`${fake.baseUrl}/files/${jobId}.mp4`] });
  });

  it('retries a delivery the receiver did not take, and gives up after the last retry', async () => {
    let startAttempts = 0;
    const isStart = (callback: Omit<ReceivedCallback, 'status'>) => (JSON.parse(callback.request.body) as { status: string }).status === 'processing';
    answerAccepted = (callback) => (isStart(callback) && ++startAttempts <= 2 ? 503 : 204);
    const jobId = await submitted();
    const delivered = await fake.waitForCallbacks(2);

    const byEvent = (a: { event: string }, b: { event: string }) => a.event.localeCompare(b.event);
    expect(delivered.sort(byEvent).map((c) => [c.predictionId, c.event, c.attempts])).toEqual([
      [jobId, 'completed', 1],
      [jobId, 'start', 3],
    ]);

    answerAccepted = () => 500;
    await submitted();
    const deadline = Date.now() + 10_000;
    while (fake.stats().callbacksFailed < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(fake.stats()).toMatchObject({ callbacksSent: 2, callbacksFailed: 2 });
    expect(fake.callbacks.filter((c) => !c.delivered).map((c) => [c.attempts, c.result])).toEqual([
      [4, 500],
      [4, 500],
    ]);
  });

  it('refuses a forged callback (signed with another secret)', async () => {
    const jobId = await submitted();
    await receiver.waitFor(2);
    expect(await fake.sendCallback(jobId, { forge: true })).toBe(401);
    expect(read[2]).toEqual(expect.objectContaining({ reason: 'signature' }));
  });

  it('refuses a genuine callback whose body was altered', async () => {
    const request = await genuineCallback();
    const altered = request.body.replace('"succeeded"', '"failed"');
    expect(altered).not.toBe(request.body);
    expect(await refusal(provider.readCallback({ ...request, body: altered }, new Date()))).toBe('signature');
  });

  it.each(['webhook-id', 'webhook-timestamp', 'webhook-signature'])('refuses a callback without %s', async (header) => {
    const request = await genuineCallback();
    const headers = { ...request.headers, [header]: undefined };
    expect(await refusal(provider.readCallback({ ...request, headers }, new Date()))).toBe('signature');
  });

  it('refuses every callback when it has no webhook secret', async () => {
    const request = await genuineCallback();
    expect(await refusal(unsigned.readCallback(request, new Date()))).toBe('signature');
  });

  it('refuses a callback signed more than five minutes from now, either way', async () => {
    const jobId = await submitted();
    await receiver.waitFor(2);
    // A margin either side of the five minutes: the callback is judged when it arrives, which on a
    // loaded machine is seconds after it was signed (that moves a future timestamp into the window).
    expect(await fake.sendCallback(jobId, { timestampOffsetSeconds: -301 })).toBe(401);
    expect(await fake.sendCallback(jobId, { timestampOffsetSeconds: 330 })).toBe(401);
    expect(await fake.sendCallback(jobId, { timestampOffsetSeconds: -240 })).toBe(204);
    expect(read.slice(2).map((r) => (r instanceof CallbackRejectedError ? r.reason : r.outcome.type))).toEqual([
      'stale',
      'stale',
      'completed',
    ]);
  });

  it('judges the timestamp against the now it is given', async () => {
    const request = await genuineCallback();
    const later = (seconds: number) => new Date(Date.now() + seconds * 1000);
    expect(await refusal(provider.readCallback(request, later(330)))).toBe('stale');
    expect((await provider.readCallback(request, later(270))).outcome.type).toBe('completed');
  });

  it.each([
    ['a body that is not JSON', 'not json at all'],
    ['a JSON array', '[]'],
    ['a prediction without an id', JSON.stringify({ status: 'succeeded', output: 'https://replicate.delivery/a.mp4' })],
    ['an unknown status', JSON.stringify({ id: 'p1', status: 'paused' })],
  ])('refuses a signed callback with %s as malformed', async (_, body) => {
    const jobId = await submitted();
    await receiver.waitFor(2);
    expect(await fake.sendCallback(jobId, { body })).toBe(401);
    expect(read[2]).toEqual(expect.objectContaining({ reason: 'malformed' }));
  });

  it('keeps the webhook secret and the token out of what it says', async () => {
    const jobId = await submitted();
    await receiver.waitFor(2);
    await fake.sendCallback(jobId, { body: JSON.stringify({ id: jobId, status: `${fake.webhookSecret} ${TOKEN}` }) });
    await fake.sendCallback(jobId, { body: JSON.stringify({ id: jobId, status: 'failed', error: `${fake.webhookSecret} ${TOKEN}` }) });
    const said = JSON.stringify(read.map((r) => (r instanceof Error ? r.message : r)));
    expect(read).toHaveLength(4);
    expect(said).toContain('[redacted]');
    expect(said).not.toContain(fake.webhookSecret.slice('whsec_'.length));
    expect(said).not.toContain(TOKEN);
  });
});

describe('the fake', () => {
  it('gives the webhook secret only with the token', async () => {
    expect((await fetch(`${fake.baseUrl}/v1/webhooks/default/secret`)).status).toBe(401);
    expect(await fakeSecret(fake.baseUrl)).toBe(fake.webhookSecret);
    expect(fake.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
  });

  it('moves a webhook prediction by time, without any read', async () => {
    await slowFake(1_000, 1_100);
    const jobId = await submitted();
    expect(fake.predictions.get(jobId)?.status).toBe('starting');
    await receiver.waitFor(1);
    expect(['processing', 'succeeded']).toContain(fake.predictions.get(jobId)?.status);
    await receiver.waitFor(2);
    expect(fake.predictions.get(jobId)?.status).toBe('succeeded');
    expect(fake.stats().reads).toBe(0);
  });

  it('calls back only for the events in webhook_events_filter', async () => {
    const response = await fetch(`${fake.baseUrl}/v1/models/bytedance/seedance-1-lite/predictions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ input: {}, webhook: callbackUrl, webhook_events_filter: ['completed'] }),
    });
    const { id } = (await response.json()) as { id: string };
    const delivered = await fake.waitForCallbacks(1);
    expect(delivered.map((c) => [c.predictionId, c.event])).toEqual([[id, 'completed']]);
    expect(receiver.received).toHaveLength(1);
  });

  it('refuses creates beyond createsPerSecond with 429 as Replicate documents it (the wait in its words, no Retry-After)', async () => {
    await fake.close();
    fake = await startFakeReplicate({ apiToken: TOKEN, createsPerSecond: 1 });
    const limited = replicate();
    const results = await Promise.all([1, 2, 3].map(() => limited.submit(videoJob).catch((e: unknown) => e)));
    const throttled = results.filter((r) => r instanceof ProviderUnavailableError) as ProviderUnavailableError[];
    const { creates, createTimes, throttledCreates } = fake.stats();
    const seconds = new Set(createTimes.map((t) => Math.floor(t / 1000)));

    expect(throttled.length).toBeGreaterThanOrEqual(1);
    expect(throttled.every((e) => e.rateLimited && e.retryAfterSeconds === 1 && !(e instanceof SubmissionUnknownError))).toBe(true);
    expect(throttledCreates).toBe(throttled.length);
    expect(creates).toBe(3 - throttled.length);
    expect(createTimes).toHaveLength(creates);
    expect(seconds.size).toBe(creates); // at most one create in each calendar second
  });
});
