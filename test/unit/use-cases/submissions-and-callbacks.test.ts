import { NotFoundError, UnauthorizedError, ValidationError, UpstreamError } from '#domain/shared/errors';
import { getTask } from '#domain/tasks/get-task';
import { ProviderUnavailableError, SubmissionUnknownError, type CallbackRequest, type ResultOutcome } from '#domain/providers/provider';
import { CounterBudget } from '#domain/providers/budget';
import { receiveProviderCallback } from '#domain/tasks/callbacks';
import { startTask } from '#domain/tasks/start-task';
import { retryDelaySeconds } from '#domain/tasks/submission';
import { sweep } from '#domain/tasks/sweep';
import { MemoryRateCounter } from '#test-support/memory-stores';
import { memoryWorld, video, type MemoryWorld } from '#test-support/memory-world';
import { SCRIPTED_SIGNATURE } from '#test-support/scripted-provider';

/** Paced and queued submissions, unanswered creates and provider callbacks, on the in-memory stores. */
let world: MemoryWorld;
beforeEach(() => {
  world = memoryWorld();
  jest.spyOn(console, 'warn').mockImplementation(() => {});
});
afterEach(() => jest.restoreAllMocks());

const signed = (body: unknown): CallbackRequest => ({ body: JSON.stringify(body), headers: { [SCRIPTED_SIGNATURE.name]: SCRIPTED_SIGNATURE.value } });
/** The token the task's callback URL carries (what the provider was given). */
const tokenOf = async (accountId: string, taskId: string) => (await world.provider.callbackToken({ provider: 'scripted', accountId, taskId }))!;
/** A callback to the task's own URL, token included. */
const callback = async (accountId: string, taskId: string, jobId: string, outcome: ResultOutcome, request = signed({ jobId, outcome })) =>
  receiveProviderCallback(world.deps, { provider: 'scripted', accountId, taskId, token: await tokenOf(accountId, taskId) }, request);

describe('submission', () => {
  it('asks the provider to call back at the task\'s own URL, and records that the job will', async () => {
    const accountId = await world.newAccount(100);
    world.provider.onSubmit(async () => ({ type: 'accepted', jobId: 'job_1', callbacks: true }));
    const task = await startTask(world.deps, accountId, video());
    expect(world.provider.submitOptions[0]).toEqual({
      callbackUrl: `https://api.test/api/v1/provider-callbacks/scripted/${accountId}/${task.taskId}?token=${await tokenOf(accountId, task.taskId)}`,
    });
    expect((await world.stores.tasks.get(accountId, task.taskId))?.provider).toEqual({ name: 'scripted', jobId: 'job_1', callbacks: true });
  });

  it('does not poll a job that calls back until it has been silent for callbackSilenceMs', async () => {
    const accountId = await world.newAccount(100);
    world.provider.onSubmit(async () => ({ type: 'accepted', jobId: 'job_1', callbacks: true }));
    const task = await startTask(world.deps, accountId, video());
    world.advance(world.deps.settings.callbackSilenceMs - 1);
    const writes = jest.spyOn(world.stores.tasks, 'transition');
    await getTask(world.deps, accountId, 'video', task.taskId);
    expect(world.provider.fetches).toBe(0);
    // Decided from the task just read: not even a (refused) check is written.
    expect(writes).not.toHaveBeenCalled();
    world.advance(1);
    await getTask(world.deps, accountId, 'video', task.taskId);
    expect(world.provider.fetches).toBe(1);
  });

  it('puts a create the provider refuses for load (429) on the queue: 200 processing, charged, then submitted by the consumer', async () => {
    const accountId = await world.newAccount(100);
    world.provider.onSubmit(async () => {
      throw new ProviderUnavailableError('HTTP 429', { reason: 'rate_limited', retryAfterSeconds: 3 });
    });
    const task = await startTask(world.deps, accountId, video());
    expect(task).toMatchObject({ status: 'processing', submitAttempts: 1 });
    expect(task.queuedAt).toBeDefined();
    expect(world.submissions).toEqual([{ message: { accountId, taskId: task.taskId }, delaySeconds: 3 }]);
    expect((await world.money(accountId)).balance).toBe(75);

    world.provider.onSubmit(async () => ({ type: 'accepted', jobId: 'job_late' }));
    expect(await world.deliverSubmissions()).toBe(1);
    const submitted = await world.stores.tasks.get(accountId, task.taskId);
    expect(submitted?.provider?.jobId).toBe('job_late');
    expect(submitted?.queuedAt).toBeUndefined();
  });

  it('submits a queued task once however often its message is delivered', async () => {
    const accountId = await world.newAccount(100);
    world.provider.onSubmit(async () => {
      throw new ProviderUnavailableError('HTTP 429', { reason: 'rate_limited', retryAfterSeconds: 1 });
    });
    const task = await startTask(world.deps, accountId, video());
    world.provider.onSubmit(async () => ({ type: 'accepted', jobId: `job_${world.provider.submits.length}` }));
    // At-least-once delivery: the same message three times, at the same time.
    const message = world.submissions.splice(0)[0]!.message;
    const { submitQueued } = await import('#domain/tasks/submission');
    await Promise.all([1, 2, 3].map(() => submitQueued(world.deps, message)));
    expect(world.provider.submits).toHaveLength(2); // the refused first try and exactly one more
    expect((await world.stores.tasks.get(accountId, task.taskId))?.provider).toBeDefined();
  });

  it('backs off while the provider stays busy, then fails and refunds once the task\'s timeout is near', async () => {
    const accountId = await world.newAccount(100);
    world.provider.onSubmit(async () => {
      throw new ProviderUnavailableError('HTTP 503');
    });
    await expect(startTask(world.deps, accountId, video())).rejects.toBeInstanceOf(UpstreamError); // inline 5xx: 502, refunded
    world.provider.onSubmit(async () => {
      throw new ProviderUnavailableError('HTTP 429', { reason: 'rate_limited' });
    });
    const task = await startTask(world.deps, accountId, video());
    const delays: number[] = [];
    for (let round = 0; round < 60 && world.submissions.length > 0; round += 1) {
      delays.push(world.submissions[0]!.delaySeconds);
      world.advance(world.submissions[0]!.delaySeconds * 1000);
      await world.deliverSubmissions();
    }
    expect(delays.slice(0, 5)).toEqual([2, 4, 8, 16, 32]);
    expect(Math.max(...delays)).toBe(60);
    expect(await world.stores.tasks.get(accountId, task.taskId)).toMatchObject({ status: 'failed', error: { code: 'upstream_error' } });
    expect(await world.money(accountId)).toMatchObject({ balance: 100, ledger: 100 });
  });

  it('keeps a task whose create timed out processing and charged: no blind refund', async () => {
    const accountId = await world.newAccount(100);
    world.provider.onSubmit(async () => {
      throw new SubmissionUnknownError('timed out');
    });
    const task = await startTask(world.deps, accountId, video());
    expect(task.status).toBe('processing');
    expect(task.provider).toBeUndefined();
    expect((await world.money(accountId)).balance).toBe(75);
  });

  it('grows the retry delay from 2 s to a minute, never below what the provider asked', () => {
    expect([1, 2, 3, 6, 7, 20].map((attempt) => retryDelaySeconds(attempt))).toEqual([2, 4, 8, 60, 60, 60]);
    expect(retryDelaySeconds(1, 30)).toBe(30);
  });
});

describe('provider budget', () => {
  it('gives turns evenly spaced, never more than perSecond in any second, and none beyond the wait', async () => {
    const budget = new CounterBudget(new MemoryRateCounter());
    const now = 1_000_000_000_000; // on a second's boundary
    const turns = await Promise.all(Array.from({ length: 12 }, () => budget.reserve('p', 5, now, 1_500)));
    const given = turns.filter((turn): turn is number => turn !== undefined).sort((a, b) => a - b);
    // 5 in the first second and 3 more within 1.5 s: turns at 0, 200, ..., 1400 ms.
    expect(given.map((turn) => turn - now)).toEqual([0, 200, 400, 600, 800, 1000, 1200, 1400]);
    expect(turns.filter((turn) => turn === undefined)).toHaveLength(4);
  });

  it('skips turns that have passed instead of giving them late', async () => {
    const budget = new CounterBudget(new MemoryRateCounter());
    const now = 1_000_000_000_450;
    expect((await budget.reserve('p', 5, now, 1_000))! - now).toBe(150); // the turn at 600 ms, not the ones at 0..400
  });

  it('skips the passed turns in one counter write: one write in a quiet second, two in a busy one', async () => {
    const counter = new MemoryRateCounter();
    const budget = new CounterBudget(counter);
    const writes = () => jest.mocked(counter.increment).mock.calls.length + jest.mocked(counter.claimAt).mock.calls.length;
    jest.spyOn(counter, 'increment');
    jest.spyOn(counter, 'claimAt');
    const second = 1_000_000_000_000;
    expect((await budget.reserve('p', 10, second + 450, 1_000))! - second).toBe(500);
    expect(writes()).toBe(1);
    // Later in the same second: its turns up to 500 ms are taken or past, the next free one is at 800 ms.
    expect((await budget.reserve('p', 10, second + 720, 1_000))! - second).toBe(800);
    expect(writes()).toBe(2);
    // A turn someone else already holds: the jump is refused, the next ticket is taken instead.
    expect((await budget.reserve('p', 10, second + 720, 1_000))! - second).toBe(900);
    expect(writes()).toBe(4);
  });
});

describe('provider callbacks', () => {
  async function started(callbacks = true) {
    const accountId = await world.newAccount(100);
    world.provider.onSubmit(async () => ({ type: 'accepted', jobId: 'job_1', callbacks }));
    const task = await startTask(world.deps, accountId, video());
    return { accountId, task };
  }

  it('moves the task on: progress, then the result copied before completed', async () => {
    const { accountId, task } = await started();
    expect(await callback(accountId, task.taskId, 'job_1', { type: 'processing', progress: 40 })).toBe('applied');
    expect((await world.stores.tasks.get(accountId, task.taskId))?.progress).toBe(40);
    expect(await callback(accountId, task.taskId, 'job_1', { type: 'completed', outputUrls: ['https://up.test/out.mp4'] })).toBe('applied');
    await world.copyQueue.drain();
    expect(await world.stores.tasks.get(accountId, task.taskId)).toMatchObject({ status: 'completed' });
    expect(world.provider.fetches).toBe(0);
    // A repeat (the provider retries) changes nothing.
    expect(await callback(accountId, task.taskId, 'job_1', { type: 'failed', code: 'upstream_error', message: 'x' })).toBe('applied');
    expect(await world.stores.tasks.get(accountId, task.taskId)).toMatchObject({ status: 'completed' });
  });

  it('refunds a failure once, however many copies of the callback race', async () => {
    const { accountId, task } = await started();
    const failed: ResultOutcome = { type: 'failed', code: 'upstream_error', message: 'boom' };
    await Promise.all(Array.from({ length: 8 }, () => callback(accountId, task.taskId, 'job_1', failed)));
    expect(await world.money(accountId)).toMatchObject({ balance: 100, ledger: 100, kinds: ['grant', 'charge', 'refund'] });
  });

  it('refuses a forged, an unreadable, an unknown-task or an other-provider callback, changing nothing', async () => {
    const { accountId, task } = await started();
    const done: ResultOutcome = { type: 'completed', outputUrls: ['https://up.test/out.mp4'] };
    await expect(
      callback(accountId, task.taskId, 'job_1', done, { body: JSON.stringify({ jobId: 'job_1', outcome: done }), headers: {} }),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(callback(accountId, task.taskId, 'job_1', done, { body: '{', headers: signed({}).headers })).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(callback(accountId, 'vid_01M7ZNHRE3YZJA4Y3XQS4DQDGQ', 'job_1', done)).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      receiveProviderCallback(world.deps, { provider: 'replicate', accountId, taskId: task.taskId }, signed({ jobId: 'job_1', outcome: done })),
    ).rejects.toBeInstanceOf(NotFoundError);
    const after = await world.stores.tasks.get(accountId, task.taskId);
    expect(after?.status).toBe('processing');
    expect(after?.pendingOutputs).toBeUndefined();
  });

  it('adopts the job of a create whose answer was lost, and the task completes', async () => {
    const accountId = await world.newAccount(100);
    world.provider.onSubmit(async () => {
      throw new SubmissionUnknownError('timed out');
    });
    const task = await startTask(world.deps, accountId, video());
    expect(await callback(accountId, task.taskId, 'job_found', { type: 'processing' })).toBe('adopted');
    expect((await world.stores.tasks.get(accountId, task.taskId))?.provider).toEqual({ name: 'scripted', jobId: 'job_found', callbacks: true });
    // The sweeper no longer counts it as lost, however long it runs.
    world.advance(world.deps.settings.submissionGraceMs + 1);
    expect((await sweep(world.deps)).lostSubmissions).toBe(0);
    await callback(accountId, task.taskId, 'job_found', { type: 'completed', outputUrls: ['https://up.test/out.mp4'] });
    await world.copyQueue.drain();
    expect(await world.stores.tasks.get(accountId, task.taskId)).toMatchObject({ status: 'completed' });
    expect((await world.money(accountId)).balance).toBe(75);
  });

  it('refunds an unanswered create after the grace period; its late callback cancels the job and changes nothing else', async () => {
    const accountId = await world.newAccount(100);
    world.provider.onSubmit(async () => {
      throw new SubmissionUnknownError('timed out');
    });
    const task = await startTask(world.deps, accountId, video());
    world.advance(world.deps.settings.submissionGraceMs);
    expect((await sweep(world.deps)).lostSubmissions).toBe(0);
    world.advance(1);
    expect((await sweep(world.deps)).lostSubmissions).toBe(1);
    expect(await world.money(accountId)).toMatchObject({ balance: 100, ledger: 100 });

    expect(await callback(accountId, task.taskId, 'job_late', { type: 'processing' })).toBe('orphaned');
    expect(world.provider.canceled).toEqual(['job_late']);
    expect(await world.stores.tasks.get(accountId, task.taskId)).toMatchObject({ status: 'failed', error: { code: 'internal_error' } });
    expect(await world.money(accountId)).toMatchObject({ balance: 100, ledger: 100, kinds: ['grant', 'charge', 'refund'] });
  });

  it('cancels a second job that calls back for a task that already has one', async () => {
    const { accountId, task } = await started();
    expect(await callback(accountId, task.taskId, 'job_other', { type: 'processing' })).toBe('orphaned');
    expect(world.provider.canceled).toEqual(['job_other']);
    expect((await world.stores.tasks.get(accountId, task.taskId))?.provider?.jobId).toBe('job_1');
  });
});

describe('provider callbacks bound to their task (replays)', () => {
  const done: ResultOutcome = { type: 'completed', outputUrls: ['https://up.test/someone-elses.mp4'] };
  const running: ResultOutcome = { type: 'processing' };
  /** A task of another account whose job is `job_1` (the callback someone replays is its). */
  async function source() {
    const accountId = await world.newAccount(100);
    world.provider.onSubmit(async () => ({ type: 'accepted', jobId: 'job_1', callbacks: true }));
    const task = await startTask(world.deps, accountId, video());
    return { accountId, taskId: task.taskId, token: await tokenOf(accountId, task.taskId) };
  }
  /** The victim's task: ended, with another job, or with no job yet. */
  async function victim(state: 'ended' | 'other job' | 'no job') {
    const accountId = await world.newAccount(100);
    world.provider.onSubmit(async () => {
      if (state === 'no job') throw new SubmissionUnknownError('timed out');
      return { type: 'accepted', jobId: 'job_victim', callbacks: true };
    });
    const task = await startTask(world.deps, accountId, video());
    if (state === 'ended') {
      await callback(accountId, task.taskId, 'job_victim', { type: 'failed', code: 'upstream_error', message: 'x' });
    }
    return { accountId, taskId: task.taskId, before: await world.stores.tasks.get(accountId, task.taskId), money: await world.money(accountId) };
  }

  it.each(['ended', 'other job', 'no job'] as const)(
    'refuses a genuine callback replayed to a task with %s, with the source URL\'s token or none; nothing changes',
    async (state) => {
      const from = await source();
      const to = await victim(state);
      const reads = jest.spyOn(world.stores.tasks, 'get');
      for (const outcome of [running, done]) {
        const request = signed({ jobId: 'job_1', outcome });
        const replay = (token?: string) =>
          receiveProviderCallback(world.deps, { provider: 'scripted', accountId: to.accountId, taskId: to.taskId, ...(token !== undefined && { token }) }, request);
        await expect(replay(from.token)).rejects.toBeInstanceOf(UnauthorizedError);
        expect(reads).not.toHaveBeenCalled();
        await expect(replay(undefined)).rejects.toBeInstanceOf(NotFoundError);
        await expect(replay('not-a-token')).rejects.toBeInstanceOf(UnauthorizedError);
        reads.mockClear();
      }
      reads.mockRestore();
      await world.copyQueue.drain();
      expect(await world.stores.tasks.get(to.accountId, to.taskId)).toEqual(to.before);
      expect(await world.money(to.accountId)).toEqual(to.money);
      expect(world.provider.canceled).toEqual([]);
      expect(world.media.objects.size).toBe(0);
    },
  );

  it('applies a callback to a URL without a token (given before tokens) only to the task whose job it reports', async () => {
    const from = await source();
    const applied = await receiveProviderCallback(world.deps, { provider: 'scripted', accountId: from.accountId, taskId: from.taskId }, signed({ jobId: 'job_1', outcome: { type: 'processing', progress: 30 } }));
    expect(applied).toBe('applied');
    expect((await world.stores.tasks.get(from.accountId, from.taskId))?.progress).toBe(30);
  });

  it('answers a message it already received duplicate, whatever the task, and changes nothing', async () => {
    const from = await source();
    const message = signed({ jobId: 'job_1', outcome: { type: 'processing', progress: 30 }, messageId: 'msg_1' });
    expect(await callback(from.accountId, from.taskId, 'job_1', running, message)).toBe('applied');
    const after = await world.stores.tasks.get(from.accountId, from.taskId);
    const repeat = signed({ jobId: 'job_1', outcome: done, messageId: 'msg_1' });
    expect(await callback(from.accountId, from.taskId, 'job_1', done, repeat)).toBe('duplicate');
    await world.copyQueue.drain();
    expect(await world.stores.tasks.get(from.accountId, from.taskId)).toEqual(after);
    // Remembered while a replay could pass the signature's time check, then forgotten.
    world.advance(10 * 60_000);
    expect(await callback(from.accountId, from.taskId, 'job_1', running, message)).toBe('applied');
  });

  it('takes the provider\'s retry of a message it could not handle', async () => {
    const from = await source();
    const message = signed({ jobId: 'job_1', outcome: running, messageId: 'msg_2' });
    jest.spyOn(world.stores.tasks, 'get').mockRejectedValueOnce(new Error('DynamoDB timed out'));
    await expect(callback(from.accountId, from.taskId, 'job_1', running, message)).rejects.toThrow('timed out');
    expect(await callback(from.accountId, from.taskId, 'job_1', running, message)).toBe('applied');
  });
});
