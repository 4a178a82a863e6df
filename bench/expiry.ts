/**
 * Expiry of 10,000 outputs in one run (issue 35, design-35 §8), figures only: DynamoDB Local and
 * s3rver (the bench stack); one account with a retention of 1 day; one video made through the API
 * (simulated provider) is the template of 10,000 clones completed 2 days ago and 1,000 completed
 * 12 h ago (the controls): each its task item with its OUTPUTS# entry (BatchWriteItem) and its
 * two objects (32 B each). One `expireOutputs()` run as the sweeper builds it (a day of 24 h):
 * prints its time, DynamoDB calls per expired object by operation, S3 calls per expired object,
 * and checks every expired task has `output_deleted_at`, a sample's objects are gone, and the
 * controls are untouched.
 * Run: npm run bench:expiry   (BENCH_EXPIRY_COUNT=1000 for fewer)
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { BatchWriteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { taskKey } from '#adapters/dynamodb/keys';
import { expiry } from '#app-context/expiry';
import { retentionChangeAudit } from '#domain/accounts/get-account';
import { OPERATOR_STAMP } from '#domain/shared/audit';
import { expireOutputs } from '#domain/tasks/retention';
import { recordDynamoCalls } from '#test-support/dynamo-calls';
import { load, newApiKey, runBench, startBenchStack } from './load';

const EXPIRED = Number(process.env.BENCH_EXPIRY_COUNT ?? 10_000);
const CONTROLS = Math.ceil(EXPIRED / 10);
const DAY_MS = 86_400_000;

type Item = Record<string, unknown>;

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function main(): Promise<void> {
  const stack = await startBenchStack('vidgen-bench-expiry', { SIM_DELAY_SECONDS: '0' });
  const { db, storage } = stack.context;
  const s3 = (storage as unknown as { s3: S3Client }).s3;
  try {
    const { accountId, apiKey } = await newApiKey(stack, 10_000_000);
    const headers = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' };
    const started = (await (await fetch(`${stack.baseUrl}/generate`, { method: 'POST', headers, body: JSON.stringify({ prompt: 'bench', duration: 3 }) })).json()) as {
      data: { video_id: string };
    };
    const templateId = started.data.video_id;
    const template = await until('the template video to be completed and announced', async () => {
      await (await fetch(`${stack.baseUrl}/videos/${templateId}`, { headers })).arrayBuffer();
      const { Item: item } = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: taskKey(accountId, templateId), ConsistentRead: true }));
      return item?.phase === 'completed' && String(item.gsi2pk ?? '').startsWith('OUTPUTS#') ? item : undefined;
    });
    const templateKeys = [...(template.output_urls as string[]), template.thumbnail_url as string].map((url) => storage.keyOf(url)!);

    const now = Date.now();
    const clone = (index: number, completedAt: string) => {
      // Same length and alphabet as the template's id, so every key layout holds.
      const taskId = templateId.slice(0, -12) + randomBytes(8).toString('hex').slice(0, 12);
      const item = JSON.parse(JSON.stringify(template).replaceAll(templateId, taskId)) as Item;
      Object.assign(item, { completed_at: completedAt, gsi2sk: `${completedAt}#${taskId}` });
      return { taskId, item, keys: templateKeys.map((key) => key.replaceAll(templateId, taskId)), index };
    };
    const expired = Array.from({ length: EXPIRED }, (_, i) => clone(i, new Date(now - 2 * DAY_MS - i * 1000).toISOString()));
    const controls = Array.from({ length: CONTROLS }, (_, i) => clone(i, new Date(now - DAY_MS / 2 - i * 1000).toISOString()));
    const all = [...expired, ...controls];

    const seeded = performance.now();
    const batches = Array.from({ length: Math.ceil(all.length / 25) }, (_, i) => all.slice(i * 25, i * 25 + 25));
    await load(batches.length, 8, async (i) => {
      let requests: Item[] | undefined = batches[i]!.map(({ item }) => ({ PutRequest: { Item: item } }));
      while (requests?.length) {
        const answer = await db.doc.send(new BatchWriteCommand({ RequestItems: { [db.tableName]: requests } }));
        requests = answer.UnprocessedItems?.[db.tableName] as Item[] | undefined;
      }
      return 200;
    });
    const objects = all.flatMap(({ keys }) => keys);
    await load(objects.length, 32, async (i) => {
      await storage.put(objects[i]!, randomBytes(32), objects[i]!.endsWith('.jpg') ? 'image/jpeg' : 'video/mp4');
      return 200;
    });
    const seedSeconds = (performance.now() - seeded) / 1000;

    const at = new Date();
    await stack.context.accounts.setOutputRetention(accountId, 1, at.toISOString(), retentionChangeAudit(OPERATOR_STAMP, 1, at));

    const s3Calls: Record<string, number> = {};
    s3.middlewareStack.add(
      (next, context) => async (args) => {
        const name = String(context.commandName).replace(/Command$/, '');
        s3Calls[name] = (s3Calls[name] ?? 0) + 1;
        return next(args);
      },
      { step: 'initialize', name: 'bench-expiry-s3-calls' },
    );
    let report = { accounts: 0, expired: 0, errors: 0 };
    const runStarted = performance.now();
    const calls = await recordDynamoCalls(db, async () => {
      report = await expireOutputs({ ...expiry(), dayMs: DAY_MS }, { stopAt: Date.now() + 3_600_000 });
    });
    const runSeconds = (performance.now() - runStarted) / 1000;
    s3.middlewareStack.remove('bench-expiry-s3-calls');

    const byOperation: Record<string, number> = {};
    for (const call of calls) byOperation[call.operation] = (byOperation[call.operation] ?? 0) + 1;
    const perObject = (count: number) => (count / Math.max(1, report.expired)).toFixed(3);

    // Checks: every expired task marked, every control untouched, a sample's objects gone/kept.
    const phases = new Map<string, number>();
    let deletedMarked = 0;
    await load(all.length, 16, async (i) => {
      const { Item: item } = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: taskKey(accountId, all[i]!.taskId) }));
      const key = `${i < EXPIRED ? 'expired' : 'control'}:${String(item?.phase)}`;
      phases.set(key, (phases.get(key) ?? 0) + 1);
      if (i < EXPIRED && item?.output_deleted_at) deletedMarked += 1;
      return 200;
    });
    const exists = async (key: string) => {
      try {
        await s3.send(new HeadObjectCommand({ Bucket: storage.bucket, Key: key }));
        return true;
      } catch {
        return false;
      }
    };
    const sample = (list: typeof all) => list.filter((_, i) => i % Math.ceil(list.length / 100) === 0);
    let expiredObjectsLeft = 0;
    let controlObjectsMissing = 0;
    for (const { keys } of sample(expired)) for (const key of keys) if (await exists(key)) expiredObjectsLeft += 1;
    for (const { keys } of sample(controls)) for (const key of keys) if (!(await exists(key))) controlObjectsMissing += 1;

    console.log(`== Expiry: ${EXPIRED} expired outputs (+ ${CONTROLS} not yet), one expireOutputs() run ==`);
    console.log(`seeded in                  ${seedSeconds.toFixed(1)} s (${all.length} items, ${objects.length} objects)`);
    console.log(`report                     ${JSON.stringify(report)}`);
    console.log(`run                        ${runSeconds.toFixed(1)} s (${(report.expired / runSeconds).toFixed(0)} tasks/s)`);
    console.log(`DynamoDB calls / task      ${perObject(calls.length)} (${calls.length}): ${Object.entries(byOperation).map(([op, n]) => `${op} ${perObject(n)}`).join(', ')}`);
    const s3Total = Object.values(s3Calls).reduce((a, b) => a + b, 0);
    console.log(`S3 calls / task            ${perObject(s3Total)} (${s3Total}): ${Object.entries(s3Calls).map(([op, n]) => `${op} ${perObject(n)}`).join(', ')}`);
    console.log(`tasks after the run        ${JSON.stringify(Object.fromEntries(phases))}; expired with output_deleted_at: ${deletedMarked}/${EXPIRED}`);
    console.log(`objects (sample of ~100+~100 tasks): expired left ${expiredObjectsLeft}, controls missing ${controlObjectsMissing}`);
    console.log(`load average               ${os.loadavg().map((value) => value.toFixed(2)).join(' ')}`);
  } finally {
    await stack.stop();
  }
}

runBench(main);
