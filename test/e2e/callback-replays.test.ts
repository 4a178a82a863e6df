import type { LocalStack } from '#bin/local-stack/stack';
import type { InProcessCopyQueue } from '#adapters/copy-queues';
import { startFakeReplicate, type FakeReplicate, type SignedMessage } from '#test-support/fake-replicate';
import { balanceAndLedger, call, startTestApi } from '#test-support/local-api';
import { newAccount } from '#test-support/accounts';

/**
 * Issue 17 A: a genuine provider callback (signed, under 5 minutes old) replayed byte for byte
 * to another task's callback URL. The local stack runs against the fake Replicate, which signs
 * its callbacks with the webhook secret the stack verifies; the messages replayed here are ones
 * the fake made for one account's job and lost on purpose (so they were never received: what
 * decides is the binding, not the replay memory) or delivered (the repeated webhook-id).
 */
jest.setTimeout(120_000);

let fake: FakeReplicate;
let stack: LocalStack;
type Task = Record<string, any>;

beforeAll(async () => {
  fake = await startFakeReplicate({ startDelayMs: 100, completeDelayMs: 600 });
  stack = await startTestApi({
    PROVIDER: 'replicate',
    REPLICATE_BASE_URL: fake.baseUrl,
    REPLICATE_API_TOKEN: fake.apiToken,
    REPLICATE_WEBHOOK_SECRET: fake.webhookSecret,
    REPLICATE_TIMEOUT_MS: '2000',
    OUTPUT_ALLOWED_ORIGINS: fake.baseUrl,
    CALLBACK_SILENCE_SECONDS: '600',
  });
});
afterAll(async () => {
  await stack?.stop();
  await fake?.close();
});

async function startVideo(key: string): Promise<string> {
  const reply = await call<Task>(stack.baseUrl, '/generate', {
    method: 'POST',
    key,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ prompt: 'a heron over the marsh', duration: 5, resolution: '480p' }),
  });
  expect(reply.status).toBe(200);
  return reply.body.data!.video_id as string;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await (stack.context.copyQueue as InProcessCopyQueue).drain();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const stored = (accountId: string, taskId: string) => stack.context.tasks.get(accountId, taskId);

/** Our callback route for a task (path only, no token), under the stack's base URL. */
const routeOf = (accountId: string, taskId: string) => `/provider-callbacks/replicate/${accountId}/${taskId}`;

/** POSTs a captured message, byte for byte, to `path` (under the stack's base URL). */
async function replay(message: SignedMessage, path: string) {
  const reply = await call<{ result: string }>(stack.baseUrl, path, { method: 'POST', headers: message.headers, body: message.body });
  return { status: reply.status, result: reply.body.data?.result };
}

/** Everything a replay must leave as it was: the task, the balance and ledger, the provider's cancels. */
async function snapshot(accountId: string, taskId: string) {
  return { task: await stored(accountId, taskId), money: await balanceAndLedger(stack, accountId), cancels: fake.stats().cancels };
}

describe('a genuine callback replayed to another task', () => {
  let source: { accountId: string; taskId: string; jobId: string; start: SignedMessage; end: SignedMessage };
  const victims: Record<'ended' | 'another job' | 'no job yet', { accountId: string; taskId: string }> = {} as never;

  beforeAll(async () => {
    // (a) A task of the victim's that has ended (completed by its own callbacks).
    const victim = await newAccount(stack, { rateLimit: 5000 });
    const ended = await startVideo(victim.key);
    await until('the victim task to complete', async () => ((await stored(victim.accountId, ended))?.status === 'completed' ? true : undefined));
    victims.ended = { accountId: victim.accountId, taskId: ended };
    // (b) One with its own job, running (held: the fake never completes it).
    fake.holdNext(1);
    const running = await startVideo(victim.key);
    victims['another job'] = { accountId: victim.accountId, taskId: running };
    // Its 'start' callback comes a moment later: let it be made before dropCallbacks(2) below, or
    // a loaded machine drops it in place of the source job's (CI saw exactly that).
    const runningJob = await until('the running job', async () => (await stored(victim.accountId, running))?.provider?.jobId);
    await until('the running job\'s start callback', async () =>
      fake.messages.some((message) => message.predictionId === runningJob && message.event === 'start') ? true : undefined);
    // (c) One with no job yet: the create's answer was unreadable (a 2xx without an id).
    fake.behave({ kind: 'respond', status: 201, body: {} });
    const waiting = await startVideo(victim.key);
    expect((await stored(victim.accountId, waiting))?.provider).toBeUndefined();
    victims['no job yet'] = { accountId: victim.accountId, taskId: waiting };

    // Another account's job, whose start and completion messages are captured and never delivered.
    const other = await newAccount(stack, { rateLimit: 5000 });
    fake.dropCallbacks(2);
    const taskId = await startVideo(other.key);
    const sourceJob = await until('the source job', async () => (await stored(other.accountId, taskId))?.provider?.jobId);
    const [start, end] = await until('the captured messages', async () => {
      const captured = fake.messages.filter((message) => message.predictionId === sourceJob && message.dropped);
      return captured.length === 2 ? captured : undefined;
    });
    source = { accountId: other.accountId, taskId, jobId: sourceJob, start: start!, end: end! };
  });

  it.each(['ended', 'another job', 'no job yet'] as const)(
    'refuses it for a task with %s, with the source URL\'s token (401) or without one (404); nothing changes, nothing is canceled',
    async (state) => {
      const { accountId, taskId } = victims[state];
      const before = await snapshot(accountId, taskId);
      const token = new URL(source.start.url).search;
      expect(token).toMatch(/^\?token=[\w-]{43}$/);
      for (const message of [source.start, source.end]) {
        expect(await replay(message, `${routeOf(accountId, taskId)}${token}`)).toEqual({ status: 401, result: undefined });
        expect(await replay(message, routeOf(accountId, taskId))).toEqual({ status: 404, result: undefined });
      }
      await (stack.context.copyQueue as InProcessCopyQueue).drain();
      expect(await snapshot(accountId, taskId)).toEqual(before);
      expect(fake.predictions.get(source.jobId)?.status).not.toBe('canceled');
    },
  );

  it('still applies the captured messages at the URL they were made for, once: a repeat is a duplicate', async () => {
    const own = new URL(source.end.url);
    const path = `${own.pathname.slice(new URL(stack.baseUrl).pathname.length)}${own.search}`;
    expect(await replay(source.end, path)).toEqual({ status: 200, result: 'applied' });
    const done = await until('the source task to complete', async () => {
      const task = await stored(source.accountId, source.taskId);
      return task?.status === 'completed' ? task : undefined;
    });
    const before = await snapshot(source.accountId, source.taskId);
    expect(await replay(source.end, path)).toEqual({ status: 200, result: 'duplicate' });
    // The start message, older than the end, is news to us but changes nothing on an ended task.
    expect(await replay(source.start, path)).toEqual({ status: 200, result: 'applied' });
    expect(await replay(source.start, path)).toEqual({ status: 200, result: 'duplicate' });
    expect(await snapshot(source.accountId, source.taskId)).toEqual(before);
    expect(done.outputUrls).toHaveLength(1);
  });
});

describe('a repeated webhook-id', () => {
  it('is answered 200 duplicate and changes nothing, even when its first delivery moved the task', async () => {
    const { accountId, key } = await newAccount(stack, { rateLimit: 5000 });
    // Held at processing once started, so the replay below would be the only news.
    fake.holdNext(1);
    const taskId = await startVideo(key);
    const jobId = await until('the job', async () => (await stored(accountId, taskId))?.provider?.jobId);
    const delivered = await until('the delivered start message', async () =>
      fake.messages.find((message) => message.predictionId === jobId && message.event === 'start' && !message.dropped),
    );
    await until('the start delivered', async () => (fake.callbacks.some((c) => c.webhookId === delivered.headers['webhook-id']) ? true : undefined));
    const before = await snapshot(accountId, taskId);
    const own = new URL(delivered.url);
    const path = `${own.pathname.slice(new URL(stack.baseUrl).pathname.length)}${own.search}`;
    expect(await replay(delivered, path)).toEqual({ status: 200, result: 'duplicate' });
    expect(await snapshot(accountId, taskId)).toEqual(before);
  });
});

describe('a signed callback whose output names our own storage (issue 17 D)', () => {
  it.each([
    ['an incoming upload', 'incoming/up_01M7ZNHRE3YZJA4Y3XQS4DQDGQ.png'],
    ["another account's result", 'videos/vid_01M7ZNHRE3YZJA4Y3XQS4DQDGQ.mp4'],
  ])('does not copy %s as the result: the task fails, refunded, and nothing is published', async (_, key) => {
    await stack.context.storage.put(key, Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypisom'), Buffer.alloc(64)]), 'video/mp4');
    const { accountId, key: apiKey } = await newAccount(stack, { rateLimit: 5000 });
    // Held, and pinned before it starts: only the callback below can end it.
    fake.holdNext(1);
    const taskId = await startVideo(apiKey);
    const jobId = await until('the job', async () => (await stored(accountId, taskId))?.provider?.jobId);
    fake.setPredictionStatus(jobId, 'processing');
    const body = JSON.stringify({ id: jobId, status: 'succeeded', output: stack.context.storage.publicUrl(key), error: null });
    expect(await fake.sendCallback(jobId, { body })).toBe(200);
    const final = await until('the task to end', async () => {
      const task = await stored(accountId, taskId);
      return task?.status === 'processing' ? undefined : task;
    });
    expect(final).toMatchObject({ status: 'failed', error: { code: 'upstream_error' } });
    expect(final?.outputUrls).toBeUndefined();
    expect(await stack.context.storage.getBytes(`videos/${taskId}.mp4`)).toBeUndefined();
    expect(await balanceAndLedger(stack, accountId)).toEqual({ balance: 1000, ledger: 1000 });
  });
});
