import { ObjectStorage } from '#adapters/s3/object-storage';
import { createS3Client } from '#adapters/s3/s3-client';
import {
  CallbackRejectedError,
  type CallbackRequest,
  type ImageJob,
  type ProviderCallback,
} from '#domain/providers/provider';
import { signCallback } from '#providers/signed-callback';
import { SimulatedProvider, type SimulatedProviderOptions } from '#providers/simulated/simulated-provider';
import { type ReceivedCallback, refusal, startCallbackReceiver } from '#test-support/callback-receiver';
import { IMAGE_JOB } from '#test-support/jobs';

/**
 * The simulated provider's callbacks over real sockets: it renders into the test s3rver bucket
 * and POSTs signed reports to a receiver on 127.0.0.1, which hands each to readCallback as
 * our public route does.
 */

const SECRET = `whsec_${Buffer.from('simulated-provider-callback-secret!').toString('base64')}`;
const OTHER_SECRET = `whsec_${Buffer.from('some-other-secret-entirely-0123456').toString('base64')}`;
const MEDIA = 'http://127.0.0.1:1/media';
const DELAY_MS = 600;

const s3 = createS3Client({ region: 'local', endpoint: process.env.TEST_S3_ENDPOINT! });
const storage = new ObjectStorage(s3, process.env.TEST_MEDIA_BUCKET!, MEDIA);

const imageJob: ImageJob = IMAGE_JOB;

let receiver: Awaited<ReturnType<typeof startCallbackReceiver>>;
let providers: SimulatedProvider[];
/** What readCallback made of each callback, keyed by nothing: in arrival order. */
let read: Array<ProviderCallback | CallbackRejectedError>;
let dropped: unknown[];
let failFirstAttempts: number;

function simulated(options: Partial<SimulatedProviderOptions> = {}): SimulatedProvider {
  const provider = new SimulatedProvider({
    storage,
    delayMs: DELAY_MS,
    fetchReference: () => Promise.reject(new Error('no references in these tests')),
    callbackSecret: SECRET,
    callbackRetryDelaysMs: [20, 40],
    onCallbackError: (error) => dropped.push(error),
    ...options,
  });
  providers.push(provider);
  return provider;
}

/** The provider the receiver verifies with. */
let sim: SimulatedProvider;
let callbackUrl: string;

beforeEach(async () => {
  providers = [];
  read = [];
  dropped = [];
  failFirstAttempts = 0;
  sim = simulated();
  receiver = await startCallbackReceiver({
    answer: async (callback) => {
      if (failFirstAttempts > 0) {
        failFirstAttempts -= 1;
        return 503;
      }
      try {
        read.push(await sim.readCallback(callback.request, new Date()));
        return 204;
      } catch (error) {
        if (!(error instanceof CallbackRejectedError)) throw error;
        read.push(error);
        return 401;
      }
    },
  });
  callbackUrl = `${receiver.origin}/api/v1/provider-callbacks/simulated/acc_1/${imageJob.taskId}`;
});

afterEach(async () => {
  for (const provider of providers) provider.close();
  await receiver.close();
});

afterAll(() => s3.destroy());

/** Submits with our callback URL, another one, or (null) none. */
async function submitted(provider: SimulatedProvider, job: ImageJob = imageJob, url: string | null = callbackUrl): Promise<string> {
  const outcome = await provider.submit(job, url === null ? {} : { callbackUrl: url });
  if (outcome.type !== 'accepted') throw new Error(`expected accepted, got ${JSON.stringify(outcome)}`);
  return outcome.jobId;
}

const accepted = (jobId: string) => (callback: ReceivedCallback) => callback.status === 204 && callback.request.body.includes(jobId);
const ended = (jobId: string) => (callback: ReceivedCallback) =>
  accepted(jobId)(callback) && !callback.request.body.includes('"processing"');
const readFor = (jobId: string) => read.filter((r): r is ProviderCallback => !(r instanceof Error) && r.jobId === jobId);

/** A genuine callback of a finished job, as received. */
async function genuineCallback(): Promise<CallbackRequest> {
  const jobId = await submitted(sim, { ...imageJob, prompt: 'sim:fail quickly' });
  const [last] = await receiver.waitFor(1, ended(jobId));
  if (!last) throw new Error('no final callback arrived');
  return last.request;
}


describe('callbacks of a job', () => {
  it('reports progress while running, then the rendered result, each signed and accepted', async () => {
    // Long enough that the progress points (at 1 s and 2 s) come before the end even on a busy
    // machine; a report that finds the job already ended sends the end instead.
    sim = simulated({ delayMs: 3000 });
    const jobId = await submitted(sim);
    await receiver.waitFor(1, ended(jobId));
    const reports = readFor(jobId);

    expect(receiver.received.every((r) => r.status === 204)).toBe(true);
    expect(reports).toHaveLength(receiver.received.length);
    const outcomes = reports.map((r) => r.outcome);
    const last = outcomes.pop();
    expect(outcomes.length).toBeGreaterThanOrEqual(1);
    expect(outcomes.length).toBeLessThanOrEqual(2);
    const progress = outcomes.map((outcome) => (outcome.type === 'processing' ? (outcome.progress ?? -1) : -1));
    expect(progress[0]).toBeGreaterThan(0);
    expect(progress.at(-1)).toBeLessThan(100);
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);
    expect(new Set(progress).size).toBe(progress.length);

    const key = `provider-sim/outputs/${jobId}.png`;
    expect(last).toEqual({ type: 'completed', outputUrls: [storage.publicUrl(key)] });
    const png = await storage.getBytes(key);
    expect(png?.subarray(1, 4).toString('latin1')).toBe('PNG');
    // A poll says the same as the callback.
    expect(await sim.fetchResult(jobId)).toEqual(last);
    expect(dropped).toEqual([]);
  });

  it.each([
    ['sim:fail', { type: 'failed', code: 'upstream_error', message: expect.stringContaining('sim:fail') }],
    ['sim:content', { type: 'failed', code: 'content_rejected', message: expect.stringContaining('sim:content') }],
  ])('reports a %s job as failed', async (word, outcome) => {
    const jobId = await submitted(sim, { ...imageJob, prompt: `${word} a lighthouse` });
    await receiver.waitFor(1, ended(jobId));
    expect(readFor(jobId).at(-1)?.outcome).toEqual(outcome);
  });

  it('reports a canceled job as failed at once', async () => {
    const slow = simulated({ delayMs: 60_000 });
    const jobId = await submitted(slow);
    await slow.cancel(jobId);
    const [callback] = await receiver.waitFor(1, ended(jobId));

    expect(callback?.status).toBe(204);
    expect(readFor(jobId).map((r) => r.outcome)).toEqual([
      { type: 'failed', code: 'upstream_error', message: expect.stringContaining('canceled') },
    ]);
  });

  it('sends none for sim:nocallback, without a callback URL, or without a secret', async () => {
    const unsigned = simulated({ callbackSecret: undefined });
    const silent = [
      await submitted(sim, { ...imageJob, prompt: 'sim:nocallback a lighthouse' }),
      await submitted(sim, imageJob, null),
      await submitted(unsigned),
    ];
    const jobId = await submitted(sim, { ...imageJob, prompt: 'sim:fail for comparison' });
    await receiver.waitFor(1, ended(jobId));
    // Every report of the silent ones was due by now. A job submitted now renders as they would:
    // once its end is seen, theirs (begun a whole delay earlier) would have been seen too.
    const later = await submitted(sim);
    expect(await receiver.waitFor(1, ended(later))).toHaveLength(1);

    expect(receiver.received.length).toBeGreaterThan(0);
    for (const silentJob of silent) expect(receiver.received.filter((r) => r.request.body.includes(silentJob))).toEqual([]);
    // Polling still ends them.
    expect((await sim.fetchResult(silent[0]!)).type).toBe('completed');
  });

  it('retries a callback the receiver did not take', async () => {
    failFirstAttempts = 2;
    const jobId = await submitted(sim, { ...imageJob, prompt: 'sim:fail retried' });
    await receiver.waitFor(1, ended(jobId));
    expect(receiver.received.slice(0, 3).map((r) => r.status)).toEqual([503, 503, 204]);
    expect(dropped).toEqual([]);
  });

  it('tries its own work again when storing the output fails once, and still calls back the result', async () => {
    // A storage that resets the connection of the first output it is asked to store.
    let outputFailures = 1;
    const flaky = Object.create(storage, {
      exists: {
        value: async (key: string) => {
          if (key.includes('/outputs/') && outputFailures > 0) {
            outputFailures -= 1;
            throw Object.assign(new Error('write ECONNRESET'), { name: 'TimeoutError' });
          }
          return storage.exists(key);
        },
      },
    }) as ObjectStorage;
    const provider = simulated({ storage: flaky });
    sim = provider;
    const jobId = await submitted(provider);
    await receiver.waitFor(1, ended(jobId));
    expect(outputFailures).toBe(0);
    expect(readFor(jobId).at(-1)?.outcome.type).toBe('completed');
    expect(dropped).toEqual([]);
  });

  it('drops a callback after its retries when nobody answers, and says so', async () => {
    const closed = await startCallbackReceiver();
    const nowhere = `${closed.origin}/gone`;
    await closed.close();
    const lost = simulated({ delayMs: 0, callbackRetryDelaysMs: [10, 10] });
    const jobId = await submitted(lost, { ...imageJob, prompt: 'sim:fail unheard' }, nowhere);

    const deadline = Date.now() + 10_000;
    while (dropped.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(String(dropped[0])).toMatch(/not delivered/);
    expect((await lost.fetchResult(jobId)).type).toBe('failed');
  });
});

describe('readCallback', () => {
  it('refuses a callback whose body was altered', async () => {
    const request = await genuineCallback();
    const altered = request.body.replace('upstream_error', 'content_rejected');
    expect(altered).not.toBe(request.body);
    expect(await refusal(sim.readCallback({ ...request, body: altered }, new Date()))).toBe('signature');
  });

  it('refuses a callback signed with another secret, and every callback without a secret', async () => {
    const request = await genuineCallback();
    const forged = { ...request, headers: signCallback(OTHER_SECRET, 'msg_forged', new Date(), request.body) };
    expect(await refusal(sim.readCallback(forged, new Date()))).toBe('signature');
    expect(await refusal(simulated({ callbackSecret: undefined }).readCallback(request, new Date()))).toBe('signature');
  });

  it('refuses a callback signed more than five minutes from now', async () => {
    const request = await genuineCallback();
    expect(await refusal(sim.readCallback(request, new Date(Date.now() + 301_000)))).toBe('stale');
    expect(await refusal(sim.readCallback(request, new Date(Date.now() - 301_000)))).toBe('stale');
    expect((await sim.readCallback(request, new Date(Date.now() + 240_000))).outcome.type).toBe('failed');
  });

  it.each([
    ['not JSON', 'not json'],
    ['an unknown status', JSON.stringify({ id: 'sim_01J00000000000000000000000', status: 'paused' })],
    ['a foreign job id', JSON.stringify({ id: 'p1', status: 'processing' })],
    ['a completed job without output', JSON.stringify({ id: 'sim_01J00000000000000000000000', status: 'succeeded', output: [] })],
    ['an output that is no http(s) URL', JSON.stringify({ id: 'sim_01J00000000000000000000000', status: 'succeeded', output: ['file:///etc/passwd'] })],
  ])('refuses a signed callback with %s as malformed', async (_, body) => {
    const request = { body, headers: signCallback(SECRET, 'msg_1', new Date(), body) };
    expect(await refusal(sim.readCallback(request, new Date()))).toBe('malformed');
  });
});

describe('a provider that runs one job at a time (SIM_CONCURRENCY=1)', () => {
  it('queues the others first come first served, each reporting the jobs still ahead, then 0 once it runs', async () => {
    let now = Date.parse('2026-03-01T12:00:00.000Z');
    const lanes = simulated({ concurrency: 1, clock: () => new Date(now), callbackSecret: undefined });
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const submitted = await lanes.submit({ ...imageJob, prompt: `job ${i}` });
      ids.push(submitted.type === 'accepted' ? submitted.jobId : '');
    }
    const places = async () => Promise.all(ids.map(async (id) => (await lanes.fetchResult(id)) as { type: string; queuePosition?: number }));

    expect((await places()).map((outcome) => outcome.queuePosition)).toEqual([0, 1, 2]);
    // The first one done, the second runs and the third has one ahead.
    now += DELAY_MS + 1;
    const second = await places();
    expect(second[0]!.type).toBe('completed');
    expect(second.slice(1).map((outcome) => [outcome.type, outcome.queuePosition])).toEqual([
      ['processing', 0],
      ['processing', 1],
    ]);
    now += DELAY_MS;
    expect((await places())[2]).toMatchObject({ type: 'processing', queuePosition: 0 });
  });

  it('runs every job at once without a concurrency, as before', async () => {
    const now = Date.parse('2026-03-01T12:00:00.000Z');
    const open = simulated({ clock: () => new Date(now), callbackSecret: undefined });
    const outcomes = await Promise.all(
      [0, 1, 2].map(async (i) => {
        const submitted = await open.submit({ ...imageJob, prompt: `job ${i}` });
        return open.fetchResult(submitted.type === 'accepted' ? submitted.jobId : '');
      }),
    );
    expect(outcomes.map((outcome) => outcome.type === 'processing' && outcome.queuePosition)).toEqual([0, 0, 0]);
  });
});
