import type { LocalStack } from '#bin/local-stack/stack';
import type { InProcessCopyQueue } from '#adapters/copy-queues';
import { MEDIA_PREFIXES } from '#adapters/s3/media-layout';
import type { LedgerEntry } from '#domain/accounts/ledger';
import { balanceAndLedger, call, listKeys, waitForFinal, startTestApi, type ApiReply, post } from '#test-support/local-api';
import { newAccount } from '#test-support/accounts';
import { pollUntil } from '#test-support/wait';

/**
 * Cancel and progress (CONTRACT.md, "Progress and cancel") over real HTTP on the local stack:
 * DynamoDB Local, s3rver and the simulated provider, which finishes a job SIM_DELAY_SECONDS after
 * submission and calls back signed progress a third and two thirds of the way, then the end. The
 * sweeper is off: callbacks and the tests' own polls move the tasks.
 */
jest.setTimeout(60_000);

const DELAY_MS = 6_000;
let stack: LocalStack;
type Task = Record<string, any>;

beforeAll(async () => {
  stack = await startTestApi({ SIM_DELAY_SECONDS: String(DELAY_MS / 1000), PROVIDER: 'simulated' });
});
afterAll(async () => {
  await stack.stop();
});

const KINDS = {
  video: { start: '/generate', body: { prompt: 'a kite over the dunes', duration: 3, resolution: '480p' }, path: 'videos', id: 'video_id', price: 15 },
  image: { start: '/generate-image', body: { prompt: 'a kite over the dunes' }, path: 'images', id: 'image_id', price: 5 },
} as const;

async function start(kind: keyof typeof KINDS, key: string, prompt: string = KINDS[kind].body.prompt) {
  const reply = await post(stack, key, KINDS[kind].start, { ...KINDS[kind].body, prompt });
  expect(reply.status).toBe(200);
  return { reply, id: reply.body.data![KINDS[kind].id] as string };
}

/**
 * Jobs that mark the end of the provider's delay by its own clock rather than ours: one submitted
 * with sim:fail (so nothing is rendered) stops being `processing` only once its delay is over. Its
 * task is on an account of its own and never polled through the API, so waiting on it moves no task.
 */
type Marker = Awaited<ReturnType<typeof newAccount>>;
const newMarker = (): Promise<Marker> => newAccount(stack, { credits: 100, rateLimit: 5000 });
const startMarker = async (marker: Marker) => (await start('image', marker.key, 'sim:fail a marker job')).id;

async function delayOver(marker: Marker, id: string): Promise<void> {
  const jobId = await pollUntil(async () => (await stack.context.tasks.get(marker.accountId, id))?.provider?.jobId, { what: `the job of ${id}` });
  await pollUntil(async () => (await stack.context.lifecycle.provider.fetchResult(jobId)).type !== 'processing', {
    timeoutMs: DELAY_MS + 30_000,
    everyMs: 100,
    what: `the end of the provider's delay for ${jobId}`,
  });
}

/** Resolves once the provider's delay has passed for every job submitted before the call. */
async function providerDelayOver(): Promise<void> {
  const marker = await newMarker();
  await delayOver(marker, await startMarker(marker));
}

async function refundsOf(accountId: string, taskId: string): Promise<LedgerEntry[]> {
  const entries = await stack.context.ledger.listForAccount(accountId);
  return entries.filter((entry) => entry.kind === 'refund' && entry.taskId === taskId);
}

/** What was published for a task (under videos/ or images/) and what the provider rendered for its job. */
async function objectsOf(kind: keyof typeof KINDS, accountId: string, taskId: string) {
  const task = await stack.context.tasks.get(accountId, taskId);
  const jobId = task!.provider!.jobId;
  const [published, rendered] = await Promise.all([
    listKeys(stack, `${KINDS[kind].path}/${taskId}`),
    listKeys(stack, `${MEDIA_PREFIXES.simulatedProvider}outputs/${jobId}`),
  ]);
  return { jobId, published, rendered };
}

function expectNotCancelable(reply: ApiReply) {
  expect(reply.status).toBe(409);
  expect(reply.body).toEqual({ data: null, error: { code: 'task_not_cancelable', message: expect.any(String) } });
}

describe.each(['video', 'image'] as const)('cancelling a processing %s', (kind) => {
  const { path, price } = KINDS[kind];

  it('fails it as canceled, refunds it once, publishes nothing and stops the provider job', async () => {
    const { accountId, key } = await newAccount(stack, { credits: 100, rateLimit: 5000 });
    const stranger = await newAccount(stack, { credits: 100, rateLimit: 5000 });

    // Another account's id, unknown ids and the other kind's route are all 404, and change nothing.
    // They aim at a task of their own (its job stalls: it stays processing, charged), so that the
    // task below is canceled right after its start, inside the provider's delay however slow the machine.
    const { id: aimedAt } = await start(kind, key, `sim:stall ${KINDS[kind].body.prompt}`);
    const otherPath = kind === 'video' ? 'images' : 'videos';
    for (const [who, target] of [
      [stranger.key, `/${path}/${aimedAt}/cancel`],
      [key, `/${path}/${kind === 'video' ? 'vid' : 'img'}_01ARZ3NDEKTSV4RRFFQ69G5FAV/cancel`],
      [key, `/${path}/nonsense/cancel`],
      [key, `/${otherPath}/${aimedAt}/cancel`],
    ] as const) {
      const reply = await post(stack, who, target);
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual({ data: null, error: { code: 'not_found', message: expect.any(String) } });
    }
    expect((await call<Task>(stack.baseUrl, `/${path}/${aimedAt}`, { key })).body.data?.status).toBe('processing');

    const { reply: started, id } = await start(kind, key);
    const canceled = await post(stack, key, `/${path}/${id}/cancel`);
    expect(started.body.data).toMatchObject({ status: 'processing', progress: 0 });
    expect(canceled.status).toBe(200);
    expect(canceled.body.error).toBeNull();
    expect(canceled.body.data).toMatchObject({
      [KINDS[kind].id]: id,
      status: 'failed',
      error: { code: 'canceled', message: expect.any(String) },
      completed_at: expect.any(String),
      credits_used: price,
    });
    expect(canceled.body.data).not.toHaveProperty(kind === 'video' ? 'video_url' : 'image_urls');
    // Both charged, this one refunded.
    expect(await balanceAndLedger(stack, accountId)).toEqual({ balance: 100 - price, ledger: 100 - price });
    // Its history says why it was refunded: canceled, not failed.
    expect(await refundsOf(accountId, id)).toEqual([expect.objectContaining({ amount: price, reason: `refund: ${kind} task canceled` })]);

    const read = await call<Task>(stack.baseUrl, `/${path}/${id}`, { key });
    expect(read.body.data).toEqual(canceled.body.data);
    expectNotCancelable(await post(stack, key, `/${path}/${id}/cancel`));

    // After the provider's delay the job still renders nothing: it was marked canceled upstream.
    await providerDelayOver();
    const later = await call<Task>(stack.baseUrl, `/${path}/${id}`, { key });
    expect(later.body.data).toEqual(canceled.body.data);
    const { jobId, published, rendered } = await objectsOf(kind, accountId, id);
    expect(await stack.context.lifecycle.provider.fetchResult(jobId)).toMatchObject({ type: 'failed', message: 'the job was canceled' });
    expect(published).toEqual([]);
    expect(rendered).toEqual([]);
    expect(await balanceAndLedger(stack, accountId)).toEqual({ balance: 100 - price, ledger: 100 - price });
    expect(await refundsOf(accountId, id)).toHaveLength(1);
  });
});

describe('progress', () => {
  it('is 0 at start, rises with the provider figure while processing, 100 when completed; then cancel is 409', async () => {
    const { accountId, key } = await newAccount(stack, { credits: 100, rateLimit: 5000 });
    const { reply: started, id } = await start('image', key);
    expect(started.body.data?.progress).toBe(0);

    const seen: number[] = [];
    let stored = 0;
    const final = await pollUntil(
      async () => {
        // The stored figure only comes from the provider (a poll or a callback, which may land at
        // any moment): read it before the view, which must never show less.
        const storedBefore = (await stack.context.tasks.get(accountId, id))!.progress;
        const reply = await call<Task>(stack.baseUrl, `/images/${id}`, { key });
        const view = reply.body.data!;
        seen.push(view.progress);
        if (view.status !== 'processing') return view;
        expect(view.progress).toBeLessThanOrEqual(95);
        expect(view.progress).toBeGreaterThanOrEqual(storedBefore);
        stored = Math.max(stored, storedBefore, (await stack.context.tasks.get(accountId, id))!.progress);
        await (stack.context.copyQueue as InProcessCopyQueue).drain();
        return undefined;
      },
      { timeoutMs: 40_000, everyMs: 400, what: `the end of ${id}` },
    );
    console.log(`progress of ${id} across polls: ${seen.join(' ')}`);
    expect(final).toMatchObject({ status: 'completed', progress: 100 });
    expect(seen.slice(1).every((value, index) => value >= seen[index]!)).toBe(true);
    // The provider reports a third of the way (2 s) and two thirds (4 s) before it finishes at
    // 6 s: the stored figure holds its own report, not only the view's estimate.
    expect(stored).toBeGreaterThanOrEqual(30);
    expect(seen.some((value) => value > 0 && value < 100)).toBe(true);

    expectNotCancelable(await post(stack, key, `/images/${id}/cancel`));
    const { published } = await objectsOf('image', accountId, id);
    expect(published).toHaveLength(1);
    expect(await balanceAndLedger(stack, accountId)).toEqual({ balance: 95, ledger: 95 });
    expect(await refundsOf(accountId, id)).toEqual([]);
  });

  it('keeps its last value when canceled', async () => {
    const { accountId, key } = await newAccount(stack, { credits: 100, rateLimit: 5000 });
    const { id } = await start('video', key);
    // The provider's first progress report (a third of 6 s) has been stored.
    await pollUntil(async () => (await stack.context.tasks.get(accountId, id))!.progress > 0, { what: `a progress report for ${id}` });
    const before = await call<Task>(stack.baseUrl, `/videos/${id}`, { key });
    expect(before.body.data?.status).toBe('processing');
    expect(before.body.data?.progress).toBeGreaterThan(0);
    const canceled = await post(stack, key, `/videos/${id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body.data?.progress).toBeGreaterThanOrEqual(before.body.data!.progress);
    // Every report the job could still send was due before a job submitted now ends.
    await providerDelayOver();
    const later = await call<Task>(stack.baseUrl, `/videos/${id}`, { key });
    expect(later.body.data).toMatchObject({ status: 'failed', progress: canceled.body.data!.progress });
  });
});

describe('cancel racing completion', () => {
  it('has exactly one outcome per task under concurrent cancels and polls, and ledger = balance', async () => {
    const N = 8;
    const CANCELS = 10;
    const POLLERS = 4;
    const { accountId, key } = await newAccount(stack, { credits: N * 5, rateLimit: 5000 });
    const marker = await newMarker();
    const markerId = await startMarker(marker);
    const tasks = await Promise.all(Array.from({ length: N }, () => start('image', key)));
    // The jobs' delay is ending (a marker job submitted just before them is done): from now on a
    // poll or an end callback may record any task's result, racing the cancels.
    await delayOver(marker, markerId);

    // How many of the tasks have left `running` (a result recorded, or canceled). Task i sends its
    // cancels once i of them have: the cancels spread over the completions, however fast the machine.
    let settled = 0;
    let racing = true;
    const leftRunning = async () => (await Promise.all(tasks.map(({ id }) => stack.context.tasks.get(accountId, id)))).filter((task) => task!.phase !== 'running').length;
    const counting = pollUntil(
      async () => {
        settled = await leftRunning();
        return !racing;
      },
      { timeoutMs: 120_000, what: 'the end of the race' },
    );

    const raced = await Promise.all(
      tasks.map(async ({ id }, index) => {
        let cancelsDone = false;
        // A client polling every 20 ms until the cancels are answered.
        const poll = async () => {
          const statuses: number[] = [];
          const polled = async () => {
            statuses.push((await call<Task>(stack.baseUrl, `/images/${id}`, { key })).status);
            return cancelsDone;
          };
          await pollUntil(polled, { timeoutMs: 60_000, everyMs: 20, what: `the cancels of ${id}` });
          return statuses;
        };
        const polls = Promise.all(Array.from({ length: POLLERS }, poll));
        await pollUntil(() => settled >= index, { timeoutMs: 60_000, everyMs: 10, what: `${index} tasks out of running` });
        const cancels = await Promise.all(Array.from({ length: CANCELS }, () => post(stack, key, `/images/${id}/cancel`)));
        cancelsDone = true;
        expect((await polls).flat().every((status) => status === 200)).toBe(true);
        return { id, cancels };
      }),
    );
    racing = false;
    await counting;

    const outcomes = { completed: 0, canceled: 0 };
    for (const { id, cancels } of raced) {
      const final = await waitForFinal<Task>(stack, key, `/images/${id}`);
      const won = cancels.filter((reply) => reply.status === 200);
      for (const reply of cancels.filter((reply) => reply.status !== 200)) expectNotCancelable(reply);
      const refunds = await refundsOf(accountId, id);
      const { published } = await objectsOf('image', accountId, id);
      if (final.body.data?.status === 'completed') {
        outcomes.completed += 1;
        expect(won).toHaveLength(0);
        expect(refunds).toHaveLength(0);
        expect(published).toHaveLength(1);
        expect(final.body.data.progress).toBe(100);
      } else {
        outcomes.canceled += 1;
        expect(final.body.data).toMatchObject({ status: 'failed', error: { code: 'canceled' } });
        expect(won).toHaveLength(1);
        expect(won[0]!.body.data).toMatchObject({ status: 'failed', error: { code: 'canceled' } });
        expect(refunds).toEqual([expect.objectContaining({ amount: 5, reason: 'refund: image task canceled' })]);
        expect(published).toEqual([]);
      }
    }
    console.log(`cancel racing completion over ${N} tasks: ${outcomes.completed} completed, ${outcomes.canceled} canceled`);
    expect(outcomes.completed + outcomes.canceled).toBe(N);
    const money = await balanceAndLedger(stack, accountId);
    expect(money.balance).toBe(money.ledger);
    expect(money.balance).toBe(outcomes.canceled * 5);
  });
});
