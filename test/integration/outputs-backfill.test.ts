import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '#adapters/dynamodb/dynamo-client';
import { phasePartition, taskKey } from '#adapters/dynamodb/keys';
import { toTaskItem } from '#adapters/dynamodb/task-item';
import { DynamoTaskStore } from '#adapters/dynamodb/task-repository';
import { indexStoredOutputs, UnknownResumeKeyError } from '#adapters/dynamodb/tasks/outputs-backfill';
import { newAccountId, newTaskId } from '#domain/shared/ids';
import { SILENT_TELEMETRY } from '#domain/shared/telemetry';
import type { TaskRef } from '#domain/tasks/ports';
import type { Task } from '#domain/tasks/task';
import { createTestDb, dropTestDb } from '#test-support/test-db';

// Tasks completed before the retention existed are in no list the expiry reads (the code of
// then removed a completion's gsi2 entry when it announced it): the backfill enters exactly those.

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

let db: Db;
let tasks: DynamoTaskStore;
beforeAll(async () => {
  db = await createTestDb();
  tasks = new DynamoTaskStore(db, SILENT_TELEMETRY);
});
afterAll(async () => {
  await dropTestDb(db);
});

/** A task item as it is stored, with `extra` attributes (a list entry) beside it. */
async function put(partitionId: string, fields: Partial<Task>, extra: Record<string, unknown> = {}): Promise<Task> {
  const task = {
    kind: 'video',
    params: { model: 'vid-1-5-pro', generationType: 'text_to_video', prompt: 'p', aspectRatio: '16:9', duration: 5, resolution: '720p' },
    taskId: newTaskId('video'),
    partitionId,
    seq: 1,
    phase: 'completed',
    status: 'completed',
    creditsUsed: 25,
    progress: 100,
    copyAttempts: 0,
    createdAt: at(0),
    updatedAt: at(2),
    outputUrls: ['https://media/videos/1.mp4'],
    completedAt: at(2),
    ...fields,
  } as Task;
  await db.doc.send(new PutCommand({ TableName: db.tableName, Item: { ...toTaskItem(task), ...extra } }));
  return task;
}

async function listed(partitionId: string): Promise<string[]> {
  const refs: TaskRef[] = [];
  for await (const ref of tasks.listCompletedBefore(partitionId, '9999')) refs.push(ref);
  return refs.map((ref) => ref.taskId);
}

it('lists completed tasks with stored outputs and no list entry, and nothing else; a second run finds nothing', async () => {
  const live = newAccountId();
  const test = `${newAccountId()}_test`;
  const old = await put(live, { completedAt: at(5) });
  const older = await put(live, { completedAt: at(3) });
  const oldTest = await put(test, {});
  const deleted = await put(live, { phase: 'output_deleted', outputDeletedAt: at(9), outputUrls: undefined });
  const failed = await put(live, { phase: 'failed', status: 'failed', error: { code: 'timeout', message: 'late' }, outputUrls: undefined });
  const processing = await put(live, { phase: 'running', status: 'processing', completedAt: undefined, outputUrls: undefined });
  // Still in the outbox, or being deleted: their own list holds them.
  const unannounced = await put(live, {}, { gsi2pk: 'ENDED#3', gsi2sk: `${at(2)}#x` });
  const deleting = await put(live, { phase: 'deleting' }, { gsi2pk: phasePartition('deleting', 1), gsi2sk: `${at(2)}#y` });
  const entryOf = async (task: Task) => (await db.doc.send(new GetCommand({ TableName: db.tableName, Key: taskKey(task.partitionId, task.taskId) }))).Item?.gsi2pk as unknown;
  const others = [deleted, failed, processing, unannounced, deleting];
  const before = await Promise.all(others.map(entryOf));

  const first = await indexStoredOutputs(db);
  // One table per test file: exactly the three old completions were found and listed.
  expect(first).toEqual({ found: 3, indexed: 3 });
  expect(await listed(live)).toEqual([older.taskId, old.taskId]);
  expect(await listed(test)).toEqual([oldTest.taskId]);
  expect(await Promise.all(others.map(entryOf))).toEqual(before);
  await expect(indexStoredOutputs(db)).resolves.toEqual({ found: 0, indexed: 0 });
});

it('stops after max pages with a resume key that continues where it stopped; a made-up key is refused', async () => {
  const partition = newAccountId();
  for (let i = 0; i < 5; i += 1) await put(partition, { completedAt: at(10 + i) });
  let run = await indexStoredOutputs(db, { maxPages: 1, itemsPerPage: 2 });
  let calls = 1;
  while (run.resumeKey) {
    run = await indexStoredOutputs(db, { resumeKey: run.resumeKey, maxPages: 1, itemsPerPage: 2 });
    calls += 1;
  }
  // Every item of the table read two at a time (the first test's 8 and these 5), so one call each: at least 7.
  expect(calls).toBeGreaterThanOrEqual(7);
  expect(await listed(partition)).toHaveLength(5);
  await expect(indexStoredOutputs(db, { resumeKey: 'not-a-key' })).rejects.toThrow(UnknownResumeKeyError);
  await expect(indexStoredOutputs(db, { resumeKey: Buffer.from('{"pk":1}').toString('base64url') })).rejects.toThrow(UnknownResumeKeyError);
});
