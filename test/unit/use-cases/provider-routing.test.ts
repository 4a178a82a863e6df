import { CircuitBreaker } from '#domain/providers/circuit-breaker';
import { UpstreamError } from '#domain/shared/errors';
import { getTask } from '#domain/tasks/get-task';
import { ProviderUnavailableError, SubmissionUnknownError, type CallbackRequest, type UnavailableReason } from '#domain/providers/provider';
import type { LogFields, Telemetry } from '#domain/shared/telemetry';
import { receiveProviderCallback } from '#domain/tasks/callbacks';
import { startTask } from '#domain/tasks/start-task';
import { sweep } from '#domain/tasks/sweep';
import { MemoryCircuitStore } from '#test-support/memory-circuits';
import { memoryWorld, video, type MemoryWorld } from '#test-support/memory-world';
import { SCRIPTED_SIGNATURE, ScriptedProvider } from '#test-support/scripted-provider';

/**
 * Routing and failover (docs/tasks.md, "Routing and failover"): vid-1-5-pro is routed to
 * `scripted` (primary) then `backup`; the circuit opens after 3 failures for 30 s.
 */
let world: MemoryWorld;
let backup: ScriptedProvider;
const THRESHOLD = 3;
const COOL_DOWN_MS = 30_000;

beforeEach(() => {
  world = memoryWorld();
  backup = new ScriptedProvider('backup');
  world.deps.otherProviders = (name) => (name === 'backup' ? backup : undefined);
  world.deps.routes = { 'vid-1-5-pro': ['scripted', 'backup'] };
  world.deps.circuits = new CircuitBreaker(new MemoryCircuitStore(), { failureThreshold: THRESHOLD, coolDownMs: COOL_DOWN_MS, probeTimeoutMs: 10_000 });
  backup.onSubmit(async () => ({ type: 'accepted', jobId: `backup_${backup.submits.length}` }));
});

const primaryDown = () =>
  world.provider.onSubmit(async () => {
    throw new ProviderUnavailableError('Replicate answered HTTP 503');
  });

describe('the circuit on the hot path', () => {
  it("reads the first route's circuit alongside the charge, so the create waits on no read of its own", async () => {
    const store = new MemoryCircuitStore();
    world.deps.circuits = new CircuitBreaker(store, { failureThreshold: THRESHOLD, coolDownMs: COOL_DOWN_MS, probeTimeoutMs: 10_000 });
    const accountId = await world.newAccount(100);
    const order: string[] = [];
    const read = store.read.bind(store);
    jest.spyOn(store, 'read').mockImplementation(async (provider) => (order.push(`read ${provider}`), read(provider)));
    const start = world.stores.tasks.start.bind(world.stores.tasks);
    jest.spyOn(world.stores.tasks, 'start').mockImplementation(async (write) => (order.push('charge'), start(write)));
    await startTask(world.deps, accountId, video());
    // Started before the charge's write, read once: the gate found it in the container's cache.
    expect(order).toEqual(['read scripted', 'charge']);
  });
});

describe('failover', () => {
  it('runs a start the primary refuses with a 5xx on the secondary: one charge, one job, the task records the secondary', async () => {
    const accountId = await world.newAccount(100);
    primaryDown();
    const task = await startTask(world.deps, accountId, video());
    expect(task).toMatchObject({ status: 'processing', provider: { name: 'backup', jobId: 'backup_1' } });
    expect([world.provider.submits.length, backup.submits.length]).toEqual([1, 1]);
    const money = await world.money(accountId);
    expect(money.kinds).toEqual(['grant', 'charge']);
    expect(money.balance).toBe(75);
  });

  it('fails over on a 429 too (nothing was created), but never on a content refusal', async () => {
    const accountId = await world.newAccount(100);
    world.provider.onSubmit(async () => {
      throw new ProviderUnavailableError('HTTP 429', { reason: 'rate_limited', retryAfterSeconds: 2 });
    });
    expect((await startTask(world.deps, accountId, video())).provider?.name).toBe('backup');

    world.provider.onSubmit(async () => ({ type: 'rejected', code: 'content_rejected', message: 'nsfw' }));
    await expect(startTask(world.deps, accountId, video())).rejects.toBeInstanceOf(UpstreamError);
    expect(backup.submits).toHaveLength(1);
    expect((await world.money(accountId)).kinds).toEqual(['grant', 'charge', 'charge', 'refund']);
  });

  it('keeps a create that timed out after sending with its provider: no failover; the late job is adopted by its callback', async () => {
    const accountId = await world.newAccount(100);
    world.provider.onSubmit(async () => {
      throw new SubmissionUnknownError('no answer within 10000 ms');
    });
    const task = await startTask(world.deps, accountId, video());
    expect(task.status).toBe('processing');
    expect(task.provider).toBeUndefined();
    expect(backup.submits).toHaveLength(0);

    const token = (await world.provider.callbackToken({ provider: 'scripted', accountId, taskId: task.taskId }))!;
    const request: CallbackRequest = {
      body: JSON.stringify({ jobId: 'late_1', outcome: { type: 'processing', progress: 10 } }),
      headers: { [SCRIPTED_SIGNATURE.name]: SCRIPTED_SIGNATURE.value },
    };
    expect(await receiveProviderCallback(world.deps, { provider: 'scripted', accountId, taskId: task.taskId, token }, request)).toBe('adopted');
    expect((await world.stores.tasks.get(accountId, task.taskId))?.provider).toMatchObject({ name: 'scripted', jobId: 'late_1' });
    expect((await world.money(accountId)).kinds).toEqual(['grant', 'charge']);
  });

  it('refunds a create that timed out after sending when no callback adopts its job within the grace', async () => {
    const accountId = await world.newAccount(100);
    world.provider.onSubmit(async () => {
      throw new SubmissionUnknownError('no answer');
    });
    const task = await startTask(world.deps, accountId, video());
    world.advance(world.deps.settings.submissionGraceMs + 1);
    await sweep(world.deps);
    expect(await world.stores.tasks.get(accountId, task.taskId)).toMatchObject({ status: 'failed' });
    expect(backup.submits).toHaveLength(0);
    expect((await world.money(accountId)).kinds).toEqual(['grant', 'charge', 'refund']);
  });

  it('answers 502 and refunds once when every route refuses', async () => {
    const accountId = await world.newAccount(100);
    primaryDown();
    backup.onSubmit(async () => {
      throw new ProviderUnavailableError('connection refused');
    });
    await expect(startTask(world.deps, accountId, video())).rejects.toBeInstanceOf(UpstreamError);
    expect([world.provider.submits.length, backup.submits.length]).toEqual([1, 1]);
    const money = await world.money(accountId);
    expect(money.kinds).toEqual(['grant', 'charge', 'refund']);
    expect(money.balance).toBe(100);
  });

  it('fails over a 4xx refusal, and fails a queued task at once when every route refused it (no retries that cannot help)', async () => {
    const accountId = await world.newAccount(100);
    world.provider.onSubmit(async () => {
      throw new ProviderUnavailableError('HTTP 422: input validation failed', { reason: 'refused' });
    });
    expect((await startTask(world.deps, accountId, video())).provider?.name).toBe('backup');

    // Queued (the backup is busy), then refused by both from the queue: failed and refunded, not retried.
    backup.onSubmit(async () => {
      throw new ProviderUnavailableError('HTTP 429', { reason: 'rate_limited' });
    });
    const queued = await startTask(world.deps, accountId, video());
    expect(queued.queuedAt).toBeDefined();
    backup.onSubmit(async () => {
      throw new ProviderUnavailableError('HTTP 401', { reason: 'refused' });
    });
    world.advance(world.submissions[0]!.delaySeconds * 1000);
    await world.deliverSubmissions();
    expect(world.submissions).toHaveLength(0);
    expect(await world.stores.tasks.get(accountId, queued.taskId)).toMatchObject({ status: 'failed', error: { code: 'upstream_error' } });
    expect((await world.money(accountId)).kinds).toEqual(['grant', 'charge', 'charge', 'refund']);
  });

  it('logs one INFO line for each route it skips or leaves, naming the provider', async () => {
    const lines: { message: string; fields?: LogFields }[] = [];
    const telemetry: Telemetry = { ...world.deps.telemetry, info: (message, fields) => void lines.push({ message, ...(fields && { fields }) }) };
    world.deps = { ...world.deps, telemetry };
    const accountId = await world.newAccount(1_000);
    primaryDown();
    for (let i = 0; i < THRESHOLD + 1; i += 1) await startTask(world.deps, accountId, video());
    const about = (message: string) => lines.filter((line) => line.message === message).map((line) => line.fields?.provider);
    expect(about('create refused before any job existed; next route')).toEqual(Array<string>(THRESHOLD).fill('scripted'));
    expect(about('route skipped: its circuit is open')).toEqual(['scripted']);
  });

  it('keeps a running task on the provider it recorded when the routes change', async () => {
    const accountId = await world.newAccount(100);
    primaryDown();
    const task = await startTask(world.deps, accountId, video());
    world.deps.routes = { 'vid-1-5-pro': ['scripted'] };
    world.advance(world.deps.settings.checkIntervalMs);
    await getTask(world.deps, accountId, 'video', task.taskId);
    expect([world.provider.fetches, backup.fetches]).toEqual([0, 1]);
  });
});

describe('circuit breaker', () => {
  it(`skips the primary after ${THRESHOLD} consecutive failures until the cool-down, then sends one probe whose success closes it`, async () => {
    const accountId = await world.newAccount(1_000);
    primaryDown();
    for (let i = 0; i < THRESHOLD + 2; i += 1) await startTask(world.deps, accountId, video());
    // Open after the third: the fourth and fifth went straight to the backup.
    expect(world.provider.submits).toHaveLength(THRESHOLD);
    expect(backup.submits).toHaveLength(THRESHOLD + 2);

    world.advance(COOL_DOWN_MS);
    world.provider.onSubmit(async () => ({ type: 'accepted', jobId: 'probe_1' }));
    const probe = await startTask(world.deps, accountId, video());
    expect(probe.provider?.name).toBe('scripted');
    // Closed again: every start goes to the primary.
    await startTask(world.deps, accountId, video());
    expect(world.provider.submits).toHaveLength(THRESHOLD + 2);
  });

  it('lets only one caller probe a half-open circuit, and reopens it when the probe fails', async () => {
    const accountId = await world.newAccount(1_000);
    primaryDown();
    for (let i = 0; i < THRESHOLD; i += 1) await startTask(world.deps, accountId, video());
    world.advance(COOL_DOWN_MS);
    // Both starts race: the store's conditional claim admits one probe.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    world.provider.onSubmit(async () => {
      await held;
      throw new ProviderUnavailableError('still 503');
    });
    const racing = [startTask(world.deps, accountId, video()), startTask(world.deps, accountId, video())];
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await Promise.all(racing);
    expect(world.provider.submits).toHaveLength(THRESHOLD + 1);
    // The failed probe reopened it: skipped for another cool-down.
    await startTask(world.deps, accountId, video());
    expect(world.provider.submits).toHaveLength(THRESHOLD + 1);
  });

  it.each<[string, () => Error]>([
    ['a 4xx (refused)', () => new ProviderUnavailableError('HTTP 404', { reason: 'refused' })],
    ['a model missing from its map (not sent)', () => new ProviderUnavailableError('no mapping', { reason: 'not_sent' })],
    ['a 2xx without a job id (unreadable)', () => new SubmissionUnknownError('no id', 'unreadable')],
    ['a 429 (rate limited)', () => new ProviderUnavailableError('HTTP 429', { reason: 'rate_limited' })],
  ])('never opens the primary\'s circuit on %s: only no answer or a 5xx counts', async (_, refusal) => {
    const accountId = await world.newAccount(1_000);
    world.provider.onSubmit(async () => {
      throw refusal();
    });
    for (let i = 0; i < THRESHOLD + 2; i += 1) await startTask(world.deps, accountId, video());
    expect(world.provider.submits).toHaveLength(THRESHOLD + 2);
  });

  it('resets the count on any answer: failures must be consecutive', async () => {
    const accountId = await world.newAccount(1_000);
    const answers: UnavailableReason[] = ['failing', 'failing', 'refused', 'failing', 'failing', 'refused', 'failing', 'failing'];
    world.provider.onSubmit(async () => {
      throw new ProviderUnavailableError('scripted', { reason: answers[world.provider.submits.length - 1]! });
    });
    for (let i = 0; i < answers.length + 1; i += 1) await startTask(world.deps, accountId, video());
    expect(world.provider.submits).toHaveLength(answers.length + 1);
  });

  it('answers 502 without asking when every route is open', async () => {
    const accountId = await world.newAccount(1_000);
    primaryDown();
    backup.onSubmit(async () => {
      throw new ProviderUnavailableError('503');
    });
    for (let i = 0; i < THRESHOLD; i += 1) await expect(startTask(world.deps, accountId, video())).rejects.toBeInstanceOf(UpstreamError);
    await expect(startTask(world.deps, accountId, video())).rejects.toBeInstanceOf(UpstreamError);
    expect([world.provider.submits.length, backup.submits.length]).toEqual([THRESHOLD, THRESHOLD]);
    expect((await world.money(accountId)).balance).toBe(1_000);
  });
});
