import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoAccountStore } from '#adapters/dynamodb/account-repository';
import type { Db } from '#adapters/dynamodb/dynamo-client';
import { accountKey } from '#adapters/dynamodb/keys';
import { DynamoTaskStore } from '#adapters/dynamodb/task-repository';
import { settlePositions } from '#adapters/dynamodb/tasks/start';
import { newAccountId, newLedgerEntryId, newTaskId } from '#domain/shared/ids';
import { SILENT_TELEMETRY } from '#domain/shared/telemetry';
import type { Task } from '#domain/tasks/task';
import { createTestDb, dropTestDb } from '#test-support/test-db';

// Two settles of one start race (the request and the sweeper, or a refund): each reads the
// account's note and the task side by side. The other's transaction can commit between those two
// reads, so one settle sees the note gone and the task still without its position: that is the
// other's success, not a task without positions.

const T0 = '2026-11-27T12:00:00.000Z';
let db: Db;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(async () => {
  await dropTestDb(db);
});

async function startedTask(): Promise<Task> {
  const accountId = newAccountId();
  const grant = { entryId: newLedgerEntryId(), accountId, kind: 'grant' as const, amount: 100, reason: 'test', createdAt: T0 };
  await new DynamoAccountStore(db).create({ accountId, credits: 100, paidAccess: false, subscriptionStatus: 'none', taskCounts: { video: 0, image: 0 }, createdAt: T0, updatedAt: T0 }, grant);
  const taskId = newTaskId('video');
  const result = await new DynamoTaskStore(db, SILENT_TELEMETRY).start({
    task: {
      kind: 'video',
      params: { model: 'vid-1-5-pro', generationType: 'text_to_video', prompt: 'a race', aspectRatio: '16:9', duration: 5, resolution: '720p' },
      taskId,
      partitionId: accountId,
      phase: 'claimed',
      status: 'processing',
      creditsUsed: 25,
      progress: 0,
      copyAttempts: 0,
      unsent: true,
      createdAt: T0,
      updatedAt: T0,
    } as Omit<Task, 'seq'>,
    charge: { entryId: newLedgerEntryId(), accountId, kind: 'charge', amount: -25, reason: 'test', taskId, createdAt: T0 },
  });
  if (result.type !== 'started') throw new Error(`not started: ${JSON.stringify(result)}`);
  return result.task;
}

it("a settle whose note is gone because the other settle committed between its reads returns the other's position", async () => {
  const task = await startedTask();
  let other: Promise<Task> | undefined;
  // This settle's task read goes first (no position yet); its account read waits until the other settle has committed (note gone).
  const racing: Db = {
    ...db,
    doc: {
      send: async (command: unknown) => {
        if (command instanceof GetCommand && (command.input.Key as { sk?: string }).sk === accountKey(task.partitionId).sk && other === undefined) {
          other = settlePositions(db, task);
          await other;
        }
        return db.doc.send(command as never);
      },
    } as unknown as Db['doc'],
  };
  const settled = await settlePositions(racing, task);
  expect(other).toBeDefined();
  expect(settled.seq).toBe(1);
  await expect(other).resolves.toMatchObject({ seq: 1 });
});
