import { AccountBusyError } from '#domain/shared/errors';
import type { ProviderBudget } from '#domain/providers/ports';
import { ProviderUnavailableError } from '#domain/providers/provider';
import { startTask } from '#domain/tasks/start-task';
import { submitQueued, UNSENT_GRACE_MS } from '#domain/tasks/submission';
import { sweep } from '#domain/tasks/sweep';
import type { Task } from '#domain/tasks/task';
import type { Phase } from '#domain/tasks/phase';
import { memoryWorld, video, type MemoryWorld } from '#test-support/memory-world';

/**
 * A failure between the charge and the create (docs/tasks.md, "Submission"): the task is marked
 * unsent until just before its create goes out, so nothing charged is left waiting on nobody.
 * The fault is the provider budget's DynamoDB counter failing (a timeout under load), the one
 * call every submitter makes between the charge and the create.
 */
let world: MemoryWorld;
let budget: FaultyBudget;
beforeEach(() => {
  world = memoryWorld();
  budget = new FaultyBudget();
  world.deps.budget = budget;
  world.deps.settings.providerBudgets = { scripted: 10 };
  jest.spyOn(console, 'warn').mockImplementation(() => {});
});
afterEach(() => jest.restoreAllMocks());

const MINUTE = 60_000;

/** The next move of a task into `to` fails as a DynamoDB timeout would, writing nothing. */
function failNextMoveInto(to: Phase): void {
  const transition = world.stores.tasks.transition.bind(world.stores.tasks);
  let failed = false;
  jest.spyOn(world.stores.tasks, 'transition').mockImplementation((task, from, target, patch) => {
    if (failed || target !== to) return transition(task, from, target, patch);
    failed = true;
    return Promise.reject(new Error('DynamoDB: request timed out'));
  });
}

/** A turn at once, unless told to time out (`failNext`) or to hang like a process that died (`hang`). */
class FaultyBudget implements ProviderBudget {
  failNext = 0;
  hang = false;
  /** Lets the hung callers go on, as if they had been alive after all. */
  private release: (() => void)[] = [];

  async reserve(_provider: string, _perSecond: number, now: number): Promise<number | undefined> {
    if (this.failNext > 0) {
      this.failNext -= 1;
      throw Object.assign(new Error('DynamoDB: request timed out'), { name: 'TimeoutError' });
    }
    if (this.hang) await new Promise<void>((resolve) => this.release.push(resolve));
    return now;
  }

  wakeUp(): void {
    this.release.splice(0).forEach((resolve) => resolve());
  }
}

/** The account's only video task, straight from the store (a start that never answered gives no id). */
async function onlyTask(accountId: string): Promise<Task | undefined> {
  return (await world.stores.tasks.listPage(accountId, 'video', 1, 10)).tasks[0];
}

/** A start that dies after its charge, before its create: its promise never settles. */
async function startThatDies(accountId: string, key?: string): Promise<{ task: Task; answer: Promise<Task> }> {
  budget.hang = true;
  const answer = startTask(world.deps, accountId, video(), key);
  for (let task = await onlyTask(accountId); ; task = await onlyTask(accountId)) {
    if (task) {
      budget.hang = false;
      return { task, answer };
    }
  }
}

describe('an error between the charge and the create', () => {
  it('answers 200 processing with the task queued, and the consumer submits it once', async () => {
    const accountId = await world.newAccount(100);
    budget.failNext = 1;
    const task = await startTask(world.deps, accountId, video());
    expect(task).toMatchObject({ status: 'processing', unsent: true });
    expect(task.queuedAt).toBeDefined();
    expect(world.submissions).toEqual([{ message: { accountId, taskId: task.taskId }, delaySeconds: 0 }]);
    expect(world.provider.submits).toHaveLength(0);
    expect((await world.money(accountId)).balance).toBe(75);

    await world.deliverSubmissions();
    expect(world.provider.submits).toHaveLength(1);
    expect(await world.stores.tasks.get(accountId, task.taskId)).toMatchObject({ status: 'processing', provider: { jobId: 'job_1' } });
    expect(await world.money(accountId)).toMatchObject({ balance: 75, ledger: 75, kinds: ['grant', 'charge'] });
  });

  it('answers 200 processing even when queuing fails too; the sweeper resumes it a minute later', async () => {
    const accountId = await world.newAccount(100);
    budget.failNext = 1;
    failNextMoveInto('queued');
    const task = await startTask(world.deps, accountId, video());
    expect(task).toMatchObject({ status: 'processing', unsent: true });
    expect(world.submissions).toHaveLength(0);

    await sweep(world.deps);
    expect(world.submissions).toHaveLength(0); // its submitter may still be at work
    world.advance(MINUTE);
    expect(await sweep(world.deps)).toMatchObject({ resumed: 1, lostSubmissions: 0 });
    await world.deliverSubmissions();
    expect(world.provider.submits).toHaveLength(1);
    expect((await world.stores.tasks.get(accountId, task.taskId))?.provider).toBeDefined();
    expect(await world.money(accountId)).toMatchObject({ balance: 75, ledger: 75 });
  });

  it('a replay under the same Idempotency-Key resumes a start that died, and the dead start cannot send a second create', async () => {
    const accountId = await world.newAccount(100);
    const dead = await startThatDies(accountId, 'k1');
    expect(dead.task.status).toBe('processing');

    // Within the grace its start may still be at work, and may yet answer 502: the copy waits for
    // that answer, then asks its client to retry (429), never answering for a task that may fail.
    world.deps.settings = { ...world.deps.settings, earlierAnswerWaitMs: 100 };
    await expect(startTask(world.deps, accountId, video(), 'k1')).rejects.toBeInstanceOf(AccountBusyError);
    expect(world.submissions).toHaveLength(0);
    world.advance(UNSENT_GRACE_MS + 1);

    const replayed = await startTask(world.deps, accountId, video(), 'k1');
    expect(replayed.taskId).toBe(dead.task.taskId);
    expect(replayed.queuedAt).toBeDefined();
    expect(world.submissions.map(({ message }) => message.taskId)).toEqual([dead.task.taskId]);

    // The first start was only slow: it goes on, finds the task queued and sends nothing.
    budget.wakeUp();
    await expect(dead.answer).resolves.toMatchObject({ taskId: dead.task.taskId, status: 'processing' });
    await world.deliverSubmissions();
    expect(world.provider.submits).toHaveLength(1);
    expect(await world.money(accountId)).toMatchObject({ balance: 75, ledger: 75, kinds: ['grant', 'charge'] });
  });

  it('the sweeper resumes a task whose start died within a minute, not after the 10-minute grace', async () => {
    const accountId = await world.newAccount(100);
    const dead = await startThatDies(accountId);
    await sweep(world.deps);
    expect(world.submissions).toHaveLength(0); // its start may still be at work
    world.advance(MINUTE);
    const report = await sweep(world.deps);
    expect(world.submissions.map(({ message }) => message.taskId)).toEqual([dead.task.taskId]);
    expect(report).toMatchObject({ resumed: 1, lostSubmissions: 0 });
    await world.deliverSubmissions();
    expect(await world.stores.tasks.get(accountId, dead.task.taskId)).toMatchObject({ status: 'processing', provider: { jobId: 'job_1' } });
    expect(await world.money(accountId)).toMatchObject({ balance: 75, ledger: 75 });
  });

  it('a queued task whose consumer fails before sending goes back on the queue, not into the 10-minute grace', async () => {
    const accountId = await world.newAccount(100);
    world.provider.onSubmit(async () => {
      throw new ProviderUnavailableError('HTTP 429', { reason: 'rate_limited', retryAfterSeconds: 2 });
    });
    const task = await startTask(world.deps, accountId, video());
    const [message] = world.submissions.splice(0);
    world.provider.onSubmit(async () => ({ type: 'accepted', jobId: 'job_late' }));

    budget.failNext = 1;
    await submitQueued(world.deps, message!.message);
    expect(await world.stores.tasks.get(accountId, task.taskId)).toMatchObject({ unsent: true, queuedAt: world.now().toISOString() });
    expect(world.submissions).toHaveLength(1);
    await world.deliverSubmissions();
    expect((await world.stores.tasks.get(accountId, task.taskId))?.provider?.jobId).toBe('job_late');
    expect(world.provider.submits).toHaveLength(2); // the 429 and the one that went through
  });
});

describe('a create that may have reached the provider', () => {
  it('answers 200 processing and keeps the 10-minute grace: no resubmission, then a refund if no job is named', async () => {
    const accountId = await world.newAccount(100);
    // The provider took the create; recording its job timed out.
    failNextMoveInto('running');
    const task = await startTask(world.deps, accountId, video());
    expect(task).toMatchObject({ status: 'processing', sentAt: world.now().toISOString() });
    expect(task.unsent).toBeUndefined();

    world.advance(MINUTE);
    await sweep(world.deps);
    expect(world.submissions).toHaveLength(0);
    expect(world.provider.submits).toHaveLength(1);
    expect((await world.stores.tasks.get(accountId, task.taskId))?.status).toBe('processing');

    world.advance(world.deps.settings.submissionGraceMs - MINUTE + 1);
    expect((await sweep(world.deps)).lostSubmissions).toBe(1);
    expect(await world.money(accountId)).toMatchObject({ balance: 100, ledger: 100, kinds: ['grant', 'charge', 'refund'] });
  });
});
