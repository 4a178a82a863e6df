import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '#adapters/dynamodb/dynamo-client';
import { durationsKey } from '#adapters/dynamodb/keys';
import { DynamoTaskDurations } from '#adapters/dynamodb/task-durations';
import { createTestDb, dropTestDb } from '#test-support/test-db';

/**
 * The estimates' history on DynamoDB Local: samples appended at completion, trimmed to the last
 * 16, the median of the recent ones, and the per-container cache (a container that records
 * reads afresh; no history is looked at again after 5 s, a history after a minute).
 */

let db: Db;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(async () => {
  await dropTestDb(db);
});

const START = Date.parse('2026-03-01T12:00:00.000Z');
/** A task that took `seconds`, completed `offset` seconds after START. */
const task = (id: number, seconds: number, offset = id) => ({
  taskId: `vid_${String(id).padStart(26, '0')}`,
  createdAt: new Date(START + (offset - seconds) * 1000).toISOString(),
  completedAt: new Date(START + offset * 1000).toISOString(),
});
const at = (seconds: number) => new Date(START + seconds * 1000);

async function samples(provider: string, model: string): Promise<unknown[]> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: durationsKey(provider, model), ConsistentRead: true }));
  return (Item?.samples as unknown[] | undefined) ?? [];
}

it('needs three samples, then gives their median; a recording container reads afresh', async () => {
  const durations = new DynamoTaskDurations(db);
  await durations.record('sim', 'm1', task(1, 10));
  await durations.record('sim', 'm1', task(2, 30));
  expect(await durations.typicalMs('sim', 'm1', at(3))).toBeNull();
  await durations.record('sim', 'm1', task(3, 20));
  // Within the no-history wait, but this container recorded: it reads again.
  expect(await durations.typicalMs('sim', 'm1', at(4))).toBe(20_000);
});

it('keeps the last 16 samples, trimming once it holds 32, and estimates from them', async () => {
  const durations = new DynamoTaskDurations(db);
  for (let i = 1; i <= 31; i += 1) await durations.record('sim', 'm2', task(i, 100));
  expect(await samples('sim', 'm2')).toHaveLength(31);
  await durations.record('sim', 'm2', task(32, 5));
  const kept = await samples('sim', 'm2');
  expect(kept).toHaveLength(16);
  expect(kept.at(-1)).toEqual({ ms: 5_000, at: task(32, 5).completedAt });
  // The newest 16: fifteen of 100 s and one of 5 s.
  expect(await durations.typicalMs('sim', 'm2', at(40))).toBe(100_000);
});

it("caches another container's reads: no history for 5 s, a history for a minute", async () => {
  const writer = new DynamoTaskDurations(db);
  const reader = new DynamoTaskDurations(db);
  expect(await reader.typicalMs('sim', 'm3', at(0))).toBeNull();
  for (let i = 1; i <= 3; i += 1) await writer.record('sim', 'm3', task(i, 8));
  expect(await reader.typicalMs('sim', 'm3', at(4))).toBeNull();
  expect(await reader.typicalMs('sim', 'm3', at(6))).toBe(8_000);
  for (let i = 4; i <= 6; i += 1) await writer.record('sim', 'm3', task(i, 60));
  // Three of 8 s and three of 60 s: 34 s, once the reader's minute is over.
  expect(await reader.typicalMs('sim', 'm3', at(60))).toBe(8_000);
  expect(await reader.typicalMs('sim', 'm3', at(67))).toBe(34_000);
});
