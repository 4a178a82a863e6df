import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { inFlightPartition, inFlightShardOf, phasePartition, taskKey } from '#adapters/dynamodb/keys';
import { DynamoAccountStore } from '#adapters/dynamodb/account-repository';
import { toTaskItem } from '#adapters/dynamodb/task-item';
import { DynamoTaskStore } from '#adapters/dynamodb/task-repository';
import type { Db } from '#adapters/dynamodb/dynamo-client';
import { refundEntry } from '#domain/tasks/charges';
import { newAccountId, newLedgerEntryId, newTaskId } from '#domain/shared/ids';
import type { Phase } from '#domain/tasks/phase';
import { SILENT_TELEMETRY } from '#domain/shared/telemetry';
import type { Task } from '#domain/tasks/task';
import { move, TRANSITIONS, type TaskEvent, type TaskPatch } from '#domain/tasks/transitions';
import { createTestDb, dropTestDb } from '#test-support/test-db';

// A table written by the code before phases keeps working: its items carry no phase, and each
// transition's condition tells their phase from the legacy fields exactly as derivePhase does.

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

/** The legacy fields of each phase, as the code before phases left them (the delivery and deletion phases came after them). */
const LEGACY: Record<Exclude<Phase, 'draft' | 'delivering' | 'deleting' | 'output_deleted'>, Partial<Task>> = {
  claimed: { unsent: true },
  queued: { unsent: true, queuedAt: at(1), submitAttempts: 1 },
  sending: { sentAt: at(1) },
  running: { provider: { name: 'p', jobId: 'j1' }, sentAt: at(1), lastCheckedAt: at(1) },
  storing: { provider: { name: 'p', jobId: 'j1' }, pendingOutputs: ['https://p/1'] },
  completed: { status: 'completed', provider: { name: 'p', jobId: 'j1' }, outputUrls: ['https://ours/1'], completedAt: at(2) },
  failed: { status: 'failed', error: { code: 'timeout', message: 'late' }, completedAt: at(2) },
};

/** The delivery events: no legacy item is delivering, so these only ever meet their phase's refusal. */
const DELIVERY_PATCHES = {
  completeForDelivery: () => ({ at: at(50), set: { outputUrls: ['https://ours/9'], completedAt: at(50), delivery: { status: 'pending', attempts: 0 } }, remove: ['pendingOutputs'] }),
  claimDelivery: () => ({ set: { delivery: { status: 'pending', attempts: 0, claimedUntil: at(60) } }, guard: { deliveryAttempts: 0, deliveryFree: at(50) } }),
  deliveryFailed: () => ({ set: { delivery: { status: 'pending', attempts: 1, lastError: 'HTTP 500' } }, guard: { deliveryAttempts: 0 } }),
  deliver: () => ({ at: at(50), set: { delivery: { status: 'delivered', attempts: 1, deliveredAt: at(50) } }, remove: ['destination'], guard: { deliveryAttempts: 0 } }),
  deliverAndDrop: () => ({ at: at(50), set: { delivery: { status: 'delivered', attempts: 1, deliveredAt: at(50) }, outputDeletedAt: at(50) }, remove: ['destination'], guard: { deliveryAttempts: 0, announced: true } }),
  giveUpDelivery: () => ({ at: at(50), set: { delivery: { status: 'failed', attempts: 1, lastError: 'HTTP 403', eventOwed: true } }, remove: ['destination'], guard: { deliveryAttempts: 0 } }),
  deliveryAnnounced: () => ({ set: { delivery: { status: 'failed', attempts: 1, lastError: 'HTTP 403' } } }),
} satisfies Partial<Record<TaskEvent, (task: Task) => TaskPatch>>;

const PATCHES: Record<TaskEvent, (task: Task) => TaskPatch> = {
  queue: (task) => ({ at: at(50), set: { queuedAt: at(50), submitAttempts: 0 }, guard: { sentAt: task.sentAt ?? null } }),
  claim: () => ({ at: at(50), remove: ['queuedAt'] }),
  send: () => ({ at: at(50), set: { sentAt: at(50) } }),
  accept: () => ({ at: at(50), set: { provider: { name: 'p', jobId: 'j1' } }, remove: ['queuedAt'], guard: { jobId: 'j1' } }),
  check: () => ({ set: { lastCheckedAt: at(50) }, guard: { checkedBefore: at(48) } }),
  progress: () => ({ set: { progress: 50 }, guard: { progressBelow: 50 } }),
  outputs: () => ({ at: at(50), set: { pendingOutputs: ['https://p/9'] } }),
  copyClaim: () => ({ set: { copyClaimedAt: at(50) }, guard: { copyClaimedBefore: at(0) } }),
  copyFailed: () => ({ countCopyFailure: true }),
  complete: () => ({ at: at(50), set: { outputUrls: ['https://ours/9'], completedAt: at(50) }, remove: ['pendingOutputs'] }),
  ...DELIVERY_PATCHES,
  fail: (task) => failure(task, 'upstream_error'),
  lose: (task) => failure(task, 'internal_error'),
  cancel: (task) => failure(task, 'canceled'),
  timeout: (task) => failure(task, 'timeout'),
  announce: () => ({ announced: true }),
  deleteOutputs: () => ({ at: at(50), set: { outputDeletedAt: at(50) }, guard: { announced: true } }),
  purge: () => ({ at: at(50), remove: ['outputUrls', 'thumbnailUrl'] }),
  markDeleted: () => ({ set: { outputDeletedAt: at(50) } }),
};

function failure(task: Task, code: 'upstream_error' | 'internal_error' | 'canceled' | 'timeout'): TaskPatch {
  const error = { code, message: code };
  return { at: at(50), set: { error, completedAt: at(50) }, remove: ['pendingOutputs'], refund: refundEntry(task, at(50), error) };
}

describe('DynamoDB task store: items written before phases', () => {
  let db: Db;
  let tasks: DynamoTaskStore;
  let accountId: string;

  beforeEach(async () => {
    db = await createTestDb();
    tasks = new DynamoTaskStore(db, SILENT_TELEMETRY);
    accountId = newAccountId();
    await new DynamoAccountStore(db).create(
      { accountId, credits: 10_000, paidAccess: false, subscriptionStatus: 'none', taskCounts: { video: 0, image: 0 }, createdAt: at(0), updatedAt: at(0) },
      { entryId: newLedgerEntryId(), accountId, kind: 'grant', amount: 10_000, reason: 'grant', createdAt: at(0) },
    );
  });
  afterEach(async () => {
    await dropTestDb(db);
  });

  /** Puts an item as the code before phases wrote it: no phase, no phase_at. */
  async function legacyTask(fields: Partial<Task>): Promise<Task> {
    const task = {
      kind: 'video',
      params: { model: 'vid-1-5-pro', generationType: 'text_to_video', prompt: 'p', aspectRatio: '16:9', duration: 5, resolution: '720p' },
      taskId: newTaskId('video'),
      partitionId: accountId,
      seq: 1,
      phase: 'sending',
      status: 'processing',
      creditsUsed: 25,
      progress: 0,
      copyAttempts: 0,
      createdAt: at(0),
      updatedAt: at(2),
      ...fields,
    } as Task;
    const { phase: _phase, phase_at: _at, ...item } = toTaskItem(task);
    await db.doc.send(new PutCommand({ TableName: db.tableName, Item: item }));
    return (await tasks.get(accountId, task.taskId))!;
  }

  it.each(Object.entries(LEGACY) as [keyof typeof LEGACY, Partial<Task>][])('reads a %s item as such and admits exactly the events of its phase', async (phase, fields) => {
    for (const event of Object.keys(TRANSITIONS) as TaskEvent[]) {
      const task = await legacyTask(fields);
      expect(task.phase).toBe(phase);
      const moved = await move(tasks, task, event, PATCHES[event](task));
      const admitted = (TRANSITIONS[event].from as readonly Phase[]).includes(phase);
      expect([event, moved !== undefined]).toEqual([event, admitted]);
      if (!moved) continue;
      // Its first new transition leaves the item with a trusted phase.
      const to = TRANSITIONS[event].to;
      expect([event, moved.phase]).toEqual([event, to === 'same' ? phase : to]);
      expect(await tasks.get(accountId, task.taskId)).toEqual(moved);
    }
  });

  it('judges an item again from its fields once the code before phases changed it (a rolling deploy)', async () => {
    const task = await legacyTask(LEGACY.claimed);
    const queued = (await move(tasks, task, 'queue', PATCHES.queue(task)))!;
    expect(queued.phase).toBe('queued');
    // The old consumer claims it: REMOVE queued_at, SET updated_at (phase_at stays behind).
    await db.doc.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: taskKey(accountId, task.taskId),
        UpdateExpression: 'SET unsent = :true, updated_at = :now REMOVE queued_at',
        ConditionExpression: '#status = :processing AND attribute_not_exists(provider_job_id) AND attribute_exists(queued_at)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':now': at(60), ':true': true, ':processing': 'processing' },
      }),
    );
    const claimed = (await tasks.get(accountId, task.taskId))!;
    expect(claimed.phase).toBe('claimed');
    expect(await move(tasks, claimed, 'claim', PATCHES.claim(claimed))).toBeUndefined();
    expect(await move(tasks, claimed, 'send', PATCHES.send(claimed))).toMatchObject({ phase: 'sending', sentAt: at(50) });
  });

  it('moves a legacy item out of the start\'s in-flight list into its phase\'s at its first new transition', async () => {
    const task = await legacyTask(LEGACY.running);
    const entry = async () => {
      const { Item } = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: taskKey(accountId, task.taskId) }));
      return Item?.gsi2pk as string | undefined;
    };
    expect(await entry()).toBe(inFlightPartition(inFlightShardOf(task.taskId)));
    await move(tasks, task, 'check', PATCHES.check(task));
    expect(await entry()).toBe(inFlightPartition(inFlightShardOf(task.taskId))); // a touch keeps it
    await move(tasks, task, 'outputs', PATCHES.outputs(task));
    expect(await entry()).toBe(phasePartition('storing', inFlightShardOf(task.taskId)));
  });
});
