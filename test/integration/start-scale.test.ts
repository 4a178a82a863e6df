import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { buildAppContext, type AppContext } from '#app-context';
import { DynamoTaskStore } from '#adapters/dynamodb/task-repository';
import { IN_FLIGHT_SHARDS, phasePartition } from '#adapters/dynamodb/keys';
import { TABLE_DEFINITION } from '#adapters/dynamodb/table-definition';
import { InProcessCopyQueue } from '#adapters/copy-queues';
import { createAccount } from '#domain/accounts/account-admin';
import { InsufficientCreditsError } from '#domain/shared/errors';
import { ledgerSum } from '#domain/accounts/ledger';
import { listTasks } from '#domain/tasks/list-tasks';
import { startTask, type StartDeps, type StartRequest } from '#domain/tasks/start-task';
import { START_GRACE_MS, sweep } from '#domain/tasks/sweep';
import type { VideoParams } from '#domain/catalogue/params';
import { SILENT_TELEMETRY, type Telemetry } from '#domain/shared/telemetry';
import { ScriptedProvider } from '#test-support/scripted-provider';
import { createTestDb, testConfig } from '#test-support/test-db';

/**
 * The start path without contention (docs/data-model.md, "Starting a task") and the sharded
 * in-flight index, with real concurrent starts against DynamoDB Local.
 */
const VIDEO: VideoParams = {
  model: 'vid-1-5-pro',
  generationType: 'text_to_video',
  prompt: 'a lighthouse at dusk',
  aspectRatio: '16:9',
  duration: 5,
  resolution: '720p',
};
const PRICE = 25;
const request = (): StartRequest => ({ kind: 'video', params: { ...VIDEO } });

let ctx: AppContext;
let deps: StartDeps;

beforeAll(async () => {
  const db = await createTestDb();
  db.doc.destroy();
  ctx = buildAppContext(testConfig(db.tableName), { provider: new ScriptedProvider() });
});

beforeEach(() => {
  deps = { ...ctx.lifecycle, provider: new ScriptedProvider(), clock: () => new Date() };
});

afterAll(async () => {
  await (ctx.copyQueue as InProcessCopyQueue).drain();
  ctx.db.doc.destroy();
});

async function newAccount(credits: number) {
  const { account } = await createAccount(ctx, { credits });
  return account.accountId;
}

/** Balance, ledger, notes of unsettled starts, and every task's position, straight from the table. */
async function state(accountId: string) {
  const { Item } = await ctx.db.doc.send(
    new GetCommand({ TableName: ctx.db.tableName, Key: { pk: `ACCOUNT#${accountId}`, sk: 'ACCOUNT' }, ConsistentRead: true }),
  );
  const { Items } = await ctx.db.doc.send(
    new QueryCommand({
      TableName: ctx.db.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :task)',
      ExpressionAttributeValues: { ':pk': `ACCOUNT#${accountId}`, ':task': 'TASK#' },
      ConsistentRead: true,
    }),
  );
  const ledger = ledgerSum(await ctx.ledger.listForAccount(accountId));
  const positions = (Items ?? []).filter((item) => item.seq !== undefined).map((item) => item.seq as number).sort((a, b) => a - b);
  return { balance: Item!.credits as number, ledger, pending: Item!.pending_starts, videoCount: Item!.video_count, positions, items: Items ?? [] };
}

const oneTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe('concurrent starts on one account', () => {
  it('50 at once all succeed, with positions 1..50, exact balance and ledger', async () => {
    const accountId = await newAccount(50 * PRICE + 10);
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => startTask(deps, accountId, request())));
    expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
    const after = await state(accountId);
    expect(after.positions).toEqual(oneTo(50));
    expect(after).toMatchObject({ balance: 10, ledger: 10, pending: {}, videoCount: 50 });
    const page = await listTasks({ tasks: ctx.tasks }, accountId, 'video', 2, 20, new Date());
    expect(page.total).toBe(50);
    expect(page.items.map((task) => task.seq)).toEqual(oneTo(30).reverse().slice(0, 20));
  });

  it('with too few credits for all: exactly as many succeed as the balance pays for, no gap', async () => {
    const accountId = await newAccount(7 * PRICE + 3);
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => startTask(deps, accountId, request())));
    const refused = results.filter((result) => result.status === 'rejected');
    expect(results.length - refused.length).toBe(7);
    for (const result of refused) expect((result as PromiseRejectedResult).reason).toBeInstanceOf(InsufficientCreditsError);
    const after = await state(accountId);
    expect(after.positions).toEqual(oneTo(7));
    expect(after).toMatchObject({ balance: 3, ledger: 3, pending: {}, videoCount: 7 });
    // A refused start writes nothing: no task, no draft.
    expect(after.items).toHaveLength(7);
  });

  it('idempotent retries racing each other are charged once per key', async () => {
    const accountId = await newAccount(1000);
    const keys = Array.from({ length: 8 }, (_, i) => `key-${i}`);
    const tasks = await Promise.all(keys.flatMap((key) => Array.from({ length: 5 }, () => startTask(deps, accountId, request(), key))));
    for (const [i] of keys.entries()) {
      expect(new Set(tasks.slice(i * 5, i * 5 + 5).map((task) => task.taskId)).size).toBe(1);
    }
    const after = await state(accountId);
    expect(after.positions).toEqual(oneTo(8));
    expect(after).toMatchObject({ balance: 1000 - 8 * PRICE, ledger: 1000 - 8 * PRICE, pending: {} });
  });
});

/** A task store whose process "dies" at one step of the start: the write matching `at` throws. */
function crashingStore(at: (command: unknown) => boolean, telemetry: Telemetry = SILENT_TELEMETRY): DynamoTaskStore {
  const doc = new Proxy(ctx.db.doc, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return (command: unknown) => (at(command) ? Promise.reject(new Error('crashed')) : target.send(command as never));
    },
  });
  return new DynamoTaskStore({ doc, tableName: ctx.db.tableName }, telemetry);
}
/** The start's one transaction (design 32, 5.2) and its settle (5.3). */
const isStartTransaction = (command: unknown) =>
  command instanceof TransactWriteCommand && JSON.stringify(command.input).includes('credits - :price');
const isSettle = (command: unknown) =>
  command instanceof TransactWriteCommand && JSON.stringify(command.input).includes('REMOVE #pending.#task');
/** The writes between a charge and its create: the move to sending (the fence before it), and queuing it instead. */
const isSubmissionStep = (command: unknown) =>
  command instanceof UpdateCommand && ['sending', 'queued'].includes(String(command.input.ExpressionAttributeValues?.[':to']));

describe('a start cut short', () => {
  it('at its transaction: nothing is written, and its Idempotency-Key is free for the retry', async () => {
    const accountId = await newAccount(100);
    await expect(startTask({ ...deps, tasks: crashingStore(isStartTransaction) }, accountId, request(), 'k1')).rejects.toThrow('crashed');
    expect(await state(accountId)).toMatchObject({ balance: 100, ledger: 100, pending: {}, positions: [], items: [] });
    const retried = await startTask(deps, accountId, request(), 'k1');
    expect(retried.seq).toBe(1);
    expect(await state(accountId)).toMatchObject({ balance: 75, ledger: 75, pending: {}, positions: [1] });
  });

  it('at its settle: answered processing and charged (the ledger whole), the sweeper settles it with no gap, and the task goes on', async () => {
    const accountId = await newAccount(100);
    await startTask(deps, accountId, request());
    const cut = await startTask({ ...deps, tasks: crashingStore(isSettle) }, accountId, request());
    expect(cut).toMatchObject({ status: 'processing', seq: 0, provider: { jobId: expect.any(String) } });
    const unsettled = await state(accountId);
    // Money is exact at every instant: the charge was written with the task.
    expect(unsettled).toMatchObject({ balance: 50, ledger: 50, positions: [1], pending: { [cut.taskId]: 2 } });

    await sweep(deps); // within the grace period: its start may still be at work
    expect((await state(accountId)).positions).toEqual([1]);
    const later = { ...deps, clock: () => new Date(Date.now() + START_GRACE_MS + 1_000) };
    expect((await sweep(later)).repairedStarts).toBe(1);
    expect((await sweep(later)).repairedStarts).toBe(0);

    expect(await state(accountId)).toMatchObject({ balance: 50, ledger: 50, pending: {}, positions: [1, 2] });
    expect(await ctx.tasks.get(accountId, cut.taskId)).toMatchObject({ seq: 2, status: 'processing', provider: { jobId: cut.provider!.jobId } });
    const third = await startTask(deps, accountId, request());
    expect(third.seq).toBe(3);
    const history = await listTasks({ tasks: ctx.tasks }, accountId, 'video', 1, 10, new Date());
    expect(history.total).toBe(3);
    expect(history.items.map((task) => task.status)).toEqual(['processing', 'processing', 'processing']);
    const ledger = await ctx.ledger.listPage(accountId, 1, 10);
    expect(ledger.total).toBe(4);
    expect(ledger.entries).toHaveLength(4);
  });

  it('after its charge, before its create: answered processing, and the sweeper resumes it a minute later', async () => {
    const accountId = await newAccount(100);
    const task = await startTask({ ...deps, tasks: crashingStore(isSubmissionStep) }, accountId, request(), 'k2');
    expect(task).toMatchObject({ status: 'processing', unsent: true });
    const stranded = await ctx.tasks.get(accountId, task.taskId);
    expect(stranded).toMatchObject({ unsent: true, seq: 1 });
    expect(stranded?.queuedAt).toBeUndefined();

    await sweep(deps);
    expect((await ctx.tasks.get(accountId, task.taskId))?.queuedAt).toBeUndefined(); // its start may still be at work
    const later = { ...deps, clock: () => new Date(Date.now() + 60_000) };
    expect(await sweep(later)).toMatchObject({ resumed: 1, lostSubmissions: 0 });
    expect(await ctx.tasks.get(accountId, task.taskId)).toMatchObject({ status: 'processing', unsent: true, submitAttempts: 0 });
    expect((await ctx.tasks.get(accountId, task.taskId))?.queuedAt).toBeDefined();
    expect(await state(accountId)).toMatchObject({ balance: 75, ledger: 75, pending: {} });
  });
});

describe('the in-flight index', () => {
  it('is sharded per phase, keys only, and the sweeper finds every task in every shard', async () => {
    const { Table } = await ctx.db.doc.send(new DescribeTableCommand({ TableName: ctx.db.tableName }));
    const index = Table!.GlobalSecondaryIndexes!.find((gsi) => gsi.IndexName === TABLE_DEFINITION.gsi2.indexName);
    expect(index?.Projection?.ProjectionType).toBe('KEYS_ONLY');

    const accountId = await newAccount(10_000);
    const answered = await Promise.all(Array.from({ length: 64 }, () => startTask(deps, accountId, request())));
    // Accepted by the provider at the start. On a loaded machine a few may wait on the queue instead
    // (their create's turn did not come within the start's wait): the sweeper resends those later.
    const started = answered.filter((task) => task.provider !== undefined);
    expect(started.length).toBeGreaterThan(2 * IN_FLIGHT_SHARDS);
    const shardsUsed = new Set<number>();
    for (let shard = 0; shard < IN_FLIGHT_SHARDS; shard += 1) {
      const { Items } = await ctx.db.doc.send(
        new QueryCommand({
          TableName: ctx.db.tableName,
          IndexName: TABLE_DEFINITION.gsi2.indexName,
          KeyConditionExpression: 'gsi2pk = :pk',
          // Accepted by the provider: indexed under its phase.
          ExpressionAttributeValues: { ':pk': phasePartition('running', shard) },
        }),
      );
      if ((Items ?? []).some((item) => item.sk.startsWith('TASK#') && started.some((task) => item.sk === `TASK#${task.taskId}`))) {
        shardsUsed.add(shard);
      }
    }
    expect(shardsUsed.size).toBeGreaterThan(IN_FLIGHT_SHARDS / 2);

    // A minute later every one of them is due for a check: one run refreshes them all, concurrently.
    const provider = new ScriptedProvider();
    const report = await sweep({ ...deps, provider, clock: () => new Date(Date.now() + 60_000) }, { concurrency: 8 });
    expect(report.errors).toBe(0);
    expect(report.refreshed).toBeGreaterThanOrEqual(started.length);
    for (const task of started) expect((await ctx.tasks.get(accountId, task.taskId))?.lastCheckedAt).toBeDefined();
  });
});
