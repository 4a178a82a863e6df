/**
 * What one end user's history page costs as the account grows (issue 34): `GET /videos?end_user=X`
 * page 1 (20 items) on an account with 20,000 tasks over 500 end users against one with 20 tasks,
 * over real HTTP on the local stack. The items are seeded straight into the table as the settle
 * leaves them (the task with its lsi1 and gsi1 positions, the end users' counters), then the two
 * pages are read in interleaved pairs. The figure is the ratio of the p50s (goal: at most 1.5).
 * Run: npm run bench:end-users   (figures only; no pass/fail)
 */
import { BatchWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '#adapters/dynamodb/dynamo-client';
import { accountKey, endUserHistoryEntry, endUserKey } from '#adapters/dynamodb/keys';
import { toTaskItem } from '#adapters/dynamodb/task-item';
import { newTaskId } from '#domain/shared/ids';
import type { Task } from '#domain/tasks/task';
import { ms, newApiKey, percentile, runBench, startBenchStack } from './load';

const BIG = { tasks: 20_000, endUsers: 500 };
const SMALL = { tasks: 20, endUsers: 1 };
const WARM_UP = 5;
const PAIRS = 41;
const SEED_CONCURRENCY = 8;

/** Tasks numbered 1..tasks, end user i mod endUsers each, as settled starts leave them. */
async function seed(db: Db, accountId: string, { tasks, endUsers }: { tasks: number; endUsers: number }): Promise<void> {
  const counts = new Map<string, number>();
  const items: Record<string, unknown>[] = [];
  const base = Date.parse('2026-01-01T00:00:00.000Z');
  for (let seq = 1; seq <= tasks; seq += 1) {
    const endUser = `user-${String(seq % endUsers).padStart(3, '0')}`;
    const endUserSeq = (counts.get(endUser) ?? 0) + 1;
    counts.set(endUser, endUserSeq);
    const createdAt = new Date(base + seq * 60_000).toISOString();
    const completedAt = new Date(base + seq * 60_000 + 30_000).toISOString();
    const taskId = newTaskId('video');
    const task = {
      kind: 'video',
      params: { model: 'vid-1-5-pro', generationType: 'text_to_video', prompt: `a kite over the dunes, take ${seq}`, aspectRatio: '16:9', duration: 5, resolution: '720p' },
      taskId,
      partitionId: accountId,
      seq,
      phase: 'completed',
      status: 'completed',
      creditsUsed: 25,
      progress: 100,
      copyAttempts: 0,
      endUser,
      metadata: { order: String(seq) },
      outputUrls: [`https://media.example/videos/${taskId}.mp4`],
      thumbnailUrl: `https://media.example/videos/${taskId}.jpg`,
      createdAt,
      updatedAt: completedAt,
      completedAt,
    } as Task;
    items.push({ ...toTaskItem(task), end_user_seq: endUserSeq, ...endUserHistoryEntry(accountId, endUser, 'video', endUserSeq) });
  }
  for (const [endUser, count] of counts) items.push({ ...endUserKey(accountId, endUser), video_count: count, first_seen_at: new Date(base).toISOString() });
  const batches: Record<string, unknown>[][] = [];
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
  let next = 0;
  await Promise.all(
    Array.from({ length: SEED_CONCURRENCY }, async () => {
      while (next < batches.length) {
        let requests = batches[next++]!.map((Item) => ({ PutRequest: { Item } }));
        while (requests.length > 0) {
          const { UnprocessedItems } = await db.doc.send(new BatchWriteCommand({ RequestItems: { [db.tableName]: requests } }));
          requests = (UnprocessedItems?.[db.tableName] ?? []) as typeof requests;
        }
      }
    }),
  );
  await db.doc.send(
    new UpdateCommand({ TableName: db.tableName, Key: accountKey(accountId), UpdateExpression: 'SET video_count = :count', ExpressionAttributeValues: { ':count': tasks } }),
  );
}

async function main(): Promise<void> {
  const stack = await startBenchStack('vidgen-bench-end-users');
  try {
    const big = await newApiKey(stack, 1_000, 1_000_000);
    const small = await newApiKey(stack, 1_000, 1_000_000);
    const seeding = performance.now();
    await seed(stack.context.db, big.accountId, BIG);
    await seed(stack.context.db, small.accountId, SMALL);
    console.log(`seeded ${BIG.tasks + SMALL.tasks} tasks in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);

    const page = async (apiKey: string, endUser: string): Promise<number> => {
      const began = performance.now();
      const response = await fetch(`${stack.baseUrl}/videos?end_user=${endUser}&limit=20`, { headers: { Authorization: `Bearer ${apiKey}` } });
      const body = (await response.json()) as { data?: { videos: unknown[]; pagination: { total: number } } };
      const took = performance.now() - began;
      if (response.status !== 200 || body.data?.videos.length !== 20) throw new Error(`${endUser}: ${response.status}, ${body.data?.videos.length} videos`);
      return took;
    };
    // A heavy end user of the big account (40 tasks) and the only one of the small (20): both pages are full.
    const [bigUser, smallUser] = ['user-007', 'user-000'];
    for (let i = 0; i < WARM_UP; i += 1) await Promise.all([page(big.apiKey, bigUser), page(small.apiKey, smallUser)]);
    const bigTimes: number[] = [];
    const smallTimes: number[] = [];
    for (let i = 0; i < PAIRS; i += 1) {
      // Alternating which goes first, one at a time: neither always reads a warmer cache.
      if (i % 2 === 0) {
        bigTimes.push(await page(big.apiKey, bigUser));
        smallTimes.push(await page(small.apiKey, smallUser));
      } else {
        smallTimes.push(await page(small.apiKey, smallUser));
        bigTimes.push(await page(big.apiKey, bigUser));
      }
    }
    const line = (label: string, times: number[]) => `${label.padEnd(58)} p50 ${ms(percentile(times, 50))}  p90 ${ms(percentile(times, 90))}`;
    console.log(line(`GET /videos?end_user=X page 1, account of ${BIG.tasks} tasks / ${BIG.endUsers} end users`, bigTimes));
    console.log(line(`GET /videos?end_user=X page 1, account of ${SMALL.tasks} tasks`, smallTimes));
    console.log(`ratio of p50s: ${(percentile(bigTimes, 50) / percentile(smallTimes, 50)).toFixed(2)} (goal: at most 1.5; ${PAIRS} interleaved pairs after ${WARM_UP} warm-ups)`);
  } finally {
    await stack.stop();
  }
}

runBench(main);
