/**
 * GET /usage's cost against the number of tasks (issue 34): `group_by=end_user` for a calendar
 * year on account A (20,000 tasks over 500 end users) and on account B (200 tasks over 200 end
 * users: as many groups as 200 tasks allow, so only the task count differs in kind). Goal: the
 * ratio of p50s <= 1.5. Information lines: a rolling 366 days (the 4-query worst case) and
 * `group_by=day` for the year.
 * Run: npm run bench:usage   (figures only; no pass/fail)
 *
 * For speed the accounts are seeded directly, not through 20,000 starts: the task items
 * (BatchWriteItem) and the usage cells those tasks' start and refund transactions write, summed
 * with the domain's own `usageCellsOf` (one Put per cell). A report reads only the cells, so the
 * task items are there to make the account as large as the goal says. DynamoDB Local is far
 * slower than DynamoDB: read the figures as relative.
 */
import { BatchWriteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '#adapters/dynamodb/dynamo-client';
import { usageCellKey } from '#adapters/dynamodb/keys';
import { toTaskItem } from '#adapters/dynamodb/task-item';
import { createAccount, createApiKey } from '#domain/accounts/account-admin';
import { newTaskId } from '#domain/shared/ids';
import type { Task } from '#domain/tasks/task';
import { usageCellsOf } from '#domain/usage/cells';
import { ms, patiently, percentile, runBench, startBenchStack } from './load';

const YEAR_START = Date.parse('2025-01-01T00:00:00.000Z');
const YEAR_MS = 365 * 86_400_000;
const MODELS = ['vid-1-5-pro', 'vid-2-0'] as const;

/** A deterministic pseudo-random sequence (the same accounts on every run). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

/** `count` settled tasks of the account spread over 2025, over `endUsers` end users (Zipf-like: a few heavy ones), 3 keys and sessions; 5 % failed and refunded. */
function tasksOf(accountId: string, count: number, endUsers: number, keyIds: string[], seed: number): Task[] {
  const next = random(seed);
  const weights = Array.from({ length: endUsers }, (_, rank) => 1 / (rank + 1));
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const pick = () => {
    let left = next() * total;
    for (const [rank, weight] of weights.entries()) if ((left -= weight) <= 0) return rank;
    return endUsers - 1;
  };
  return Array.from({ length: count }, (_, index) => {
    // Every end user has at least one task; the rest follow the weights.
    const endUser = `user-${String(index < endUsers ? index : pick()).padStart(4, '0')}`;
    const createdAt = new Date(YEAR_START + Math.floor(next() * YEAR_MS)).toISOString();
    const failed = next() < 0.05;
    const keyId = keyIds[index % (keyIds.length + 1)];
    const model = MODELS[index % MODELS.length]!;
    return {
      kind: 'video',
      taskId: newTaskId('video'),
      partitionId: accountId,
      seq: index + 1,
      phase: failed ? 'failed' : 'completed',
      status: failed ? 'failed' : 'completed',
      creditsUsed: 25,
      progress: 100,
      copyAttempts: 0,
      params: { model, generationType: 'text_to_video', prompt: `bench ${index}`, aspectRatio: '16:9', duration: 5, resolution: '720p' },
      endUser,
      ...(keyId !== undefined && { chargedTo: { keyId, month: createdAt.slice(0, 7), endUser } }),
      usageCounted: true,
      ...(failed ? { error: { code: 'upstream_error', message: 'bench' } } : { outputUrls: ['https://media.test/x.mp4'] }),
      createdAt,
      updatedAt: createdAt,
      completedAt: createdAt,
    } as Task;
  });
}

async function batchWrite(db: Db, items: Record<string, unknown>[]): Promise<void> {
  const batches = Array.from({ length: Math.ceil(items.length / 25) }, (_, index) => items.slice(index * 25, index * 25 + 25));
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < batches.length) {
        let requests = batches[next++]!.map((Item) => ({ PutRequest: { Item } }));
        while (requests.length > 0) {
          const batch = requests;
          const { UnprocessedItems } = await patiently(() => db.doc.send(new BatchWriteCommand({ RequestItems: { [db.tableName]: batch } })));
          requests = (UnprocessedItems?.[db.tableName] ?? []) as typeof requests;
        }
      }
    }),
  );
}

/** The task items, and the cells their transactions would have written (charges, and the refunds of the failed). */
async function seed(db: Db, tasks: Task[]): Promise<number> {
  const cells = new Map<string, { key: ReturnType<typeof usageCellKey>; values: Record<string, number> }>();
  for (const task of tasks) {
    for (const cell of [...usageCellsOf(task, 'charge'), ...(task.status === 'failed' ? usageCellsOf(task, 'refund') : [])]) {
      const key = usageCellKey(task.partitionId, cell.kind, cell.period, cell.group);
      const id = `${key.pk}|${key.sk}`;
      const entry = cells.get(id) ?? { key, values: {} };
      for (const [name, amount] of Object.entries(cell.add)) entry.values[name] = (entry.values[name] ?? 0) + amount;
      cells.set(id, entry);
    }
  }
  await batchWrite(db, tasks.map((task) => toTaskItem(task)));
  const entries = [...cells.values()];
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < entries.length) {
        const { key, values } = entries[next++]!;
        await patiently(() => db.doc.send(new PutCommand({ TableName: db.tableName, Item: { ...key, ...values } })));
      }
    }),
  );
  return entries.length;
}

async function main(): Promise<void> {
  const stack = await startBenchStack('vidgen-bench-usage');
  try {
    const { db } = stack.context;
    const accounts = await Promise.all(
      [
        { label: 'A', tasks: 20_000, endUsers: 500 },
        { label: 'B', tasks: 200, endUsers: 200 },
      ].map(async (shape, index) => {
        const { account } = await createAccount(stack.context, { credits: 1_000_000 });
        const key = await createApiKey(stack.context, account.accountId, { rateLimit: 1_000_000 });
        const began = performance.now();
        const cells = await seed(db, tasksOf(account.accountId, shape.tasks, shape.endUsers, [key.keyId, 'key_other1', 'key_other2'], 34 + index));
        console.log(`seeded ${shape.label}: ${shape.tasks} tasks over ${shape.endUsers} end users, ${cells} usage cells (${((performance.now() - began) / 1000).toFixed(1)} s)`);
        return { ...shape, apiKey: key.apiKey };
      }),
    );
    const [a, b] = accounts as [(typeof accounts)[number], (typeof accounts)[number]];

    /** One GET: its time, status and body size (read whole, as a client does). */
    const timed = async (apiKey: string, query: string) => {
      const began = performance.now();
      const response = await fetch(`${stack.baseUrl}/usage?${query}`, { headers: { Authorization: `Bearer ${apiKey}` } });
      const body = await response.text();
      if (response.status !== 200) throw new Error(`GET /usage?${query}: ${response.status} ${body.slice(0, 200)}`);
      return { ms: performance.now() - began, bytes: body.length, rows: (JSON.parse(body) as { data: { rows: unknown[] } }).data.rows.length };
    };

    /** 5 warm-up requests each, then 41 interleaved pairs, so both see the same machine. */
    const compare = async (label: string, query: string, goal?: number) => {
      for (let i = 0; i < 5; i += 1) await Promise.all([timed(a.apiKey, query), timed(b.apiKey, query)]);
      const times = { a: [] as number[], b: [] as number[] };
      let shapes = { a: { bytes: 0, rows: 0 }, b: { bytes: 0, rows: 0 } };
      for (let i = 0; i < 41; i += 1) {
        const first = i % 2 === 0 ? a : b;
        const second = first === a ? b : a;
        const one = await timed(first.apiKey, query);
        const two = await timed(second.apiKey, query);
        const [ofA, ofB] = first === a ? [one, two] : [two, one];
        times.a.push(ofA.ms);
        times.b.push(ofB.ms);
        shapes = { a: ofA, b: ofB };
      }
      const ratio = percentile(times.a, 50) / percentile(times.b, 50);
      console.log(`\n${label}: GET /usage?${query}`);
      for (const [name, account] of [['A', a], ['B', b]] as const) {
        const side = name === 'A' ? 'a' : 'b';
        console.log(
          `  ${name} (${account.tasks} tasks, ${account.endUsers} end users)  p50 ${ms(percentile(times[side], 50))}  p90 ${ms(percentile(times[side], 90))}  rows ${shapes[side].rows}  ${shapes[side].bytes} bytes`,
        );
      }
      console.log(`  ratio of p50s A/B ${ratio.toFixed(2)}${goal === undefined ? ' (information)' : `  goal <= ${goal}: ${ratio <= goal ? 'met' : 'NOT met'}`}`);
    };

    await compare('a calendar year by end user (the goal)', 'from=2025-01-01&to=2025-12-31&group_by=end_user', 1.5);
    await compare('a rolling 366 days by end user (2 year items + 2 month items per group)', 'from=2025-03-15&to=2026-03-15&group_by=end_user');
    await compare('a calendar year by day (12 month items per model)', 'from=2025-01-01&to=2025-12-31&group_by=day');
  } finally {
    await stack.stop();
  }
}

runBench(main);
