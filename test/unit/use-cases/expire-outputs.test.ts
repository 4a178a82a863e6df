import { retentionChangeAudit } from '#domain/accounts/get-account';
import { OPERATOR_STAMP } from '#domain/shared/audit';
import { getTask } from '#domain/tasks/get-task';
import { expireOutputs, expiresAt, type ExpiryDeps } from '#domain/tasks/retention';
import { startTask } from '#domain/tasks/start-task';
import type { Task } from '#domain/tasks/task';
import { memoryWorld, video, type MemoryWorld } from '#test-support/memory-world';

/** The expiry (domain/tasks/retention.ts) on the in-memory stores, with a clock the test moves. */
const DAY = 86_400_000;
let world: MemoryWorld;
let deps: ExpiryDeps;
beforeEach(() => {
  world = memoryWorld();
  deps = { ...world.deps, accounts: world.stores.accounts, dayMs: DAY, realTime: () => 0 };
  jest.spyOn(console, 'warn').mockImplementation(() => {});
});
afterEach(() => jest.restoreAllMocks());

async function completedVideo(accountId: string): Promise<Task> {
  const started = await startTask(world.deps, accountId, video());
  world.provider.onFetch(async () => ({ type: 'completed', outputUrls: [`https://provider.test/${started.taskId}.mp4`] }));
  world.advance(3_000);
  await getTask(world.deps, accountId, 'video', started.taskId);
  await world.copyQueue.drain();
  return (await world.stores.tasks.get(accountId, started.taskId))!;
}

const run = () => expireOutputs(deps, { stopAt: 1 });
const phaseOf = async (task: Task) => (await world.stores.tasks.get(task.partitionId, task.taskId))!.phase;

describe('expiring outputs', () => {
  it('deletes exactly the outputs completed more than the retention ago: 1 ms past is deleted, 1 ms short is kept', async () => {
    const accountId = await world.newAccount(100);
    const task = await completedVideo(accountId);
    await world.stores.accounts.setOutputRetention(accountId, 1, world.now().toISOString(), retentionChangeAudit(OPERATOR_STAMP, 1, world.now()));
    const expires = expiresAt(task, { days: 1, dayMs: DAY })!;
    expect(Date.parse(expires) - Date.parse(task.completedAt!)).toBe(DAY);
    world.advance(Date.parse(expires) - world.now().getTime() - 1);
    expect(await run()).toEqual({ accounts: 1, expired: 0, errors: 0 });
    expect(await phaseOf(task)).toBe('completed');
    // At the instant itself still kept (strictly before the cutoff), one ms later deleted.
    world.advance(1);
    expect((await run()).expired).toBe(0);
    world.advance(1);
    expect(await run()).toEqual({ accounts: 1, expired: 1, errors: 0 });
    expect(await world.stores.tasks.get(accountId, task.taskId)).toMatchObject({ phase: 'output_deleted', outputDeletedAt: world.now().toISOString() });
    expect([...world.media.objects.keys()].filter((key) => key.includes(task.taskId))).toEqual([]);
    expect((await run()).expired).toBe(0);
    expect(await world.money(accountId)).toMatchObject({ balance: 75, ledger: 75 });
  });

  it('leaves accounts without a retention alone, and stops once the retention is lengthened', async () => {
    const [kept, lengthened] = [await world.newAccount(100), await world.newAccount(100)];
    const [a, b] = [await completedVideo(kept), await completedVideo(lengthened)];
    await world.stores.accounts.setOutputRetention(lengthened, 1, world.now().toISOString(), retentionChangeAudit(OPERATOR_STAMP, 1, world.now()));
    await world.stores.accounts.setOutputRetention(lengthened, 30, world.now().toISOString(), retentionChangeAudit(OPERATOR_STAMP, 30, world.now()));
    world.advance(2 * DAY);
    expect(await run()).toEqual({ accounts: 1, expired: 0, errors: 0 });
    expect([await phaseOf(a), await phaseOf(b)]).toEqual(['completed', 'completed']);
  });

  it('expires each task once under a concurrent DELETE-like run', async () => {
    const accountId = await world.newAccount(100);
    const tasks = [await completedVideo(accountId), await completedVideo(accountId), await completedVideo(accountId)];
    await world.stores.accounts.setOutputRetention(accountId, 1, world.now().toISOString(), retentionChangeAudit(OPERATOR_STAMP, 1, world.now()));
    world.advance(DAY + 1);
    const reports = await Promise.all([run(), run()]);
    expect(reports.reduce((sum, report) => sum + report.expired, 0)).toBe(3);
    for (const task of tasks) expect(await phaseOf(task)).toBe('output_deleted');
  });
});
