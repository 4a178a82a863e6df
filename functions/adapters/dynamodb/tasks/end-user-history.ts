import { GetCommand, type TransactWriteItem } from '@aws-sdk/lib-dynamodb';
import type { Task, TaskKind } from '#domain/tasks/task';
import type { Db } from '../dynamo-client';
import { endUserHistoryEntry, endUserKey, endUserPartition } from '../keys';
import { positionPageOn } from '../position-page';
import { fromTaskItem } from '../task-item';
import { TABLE_DEFINITION } from '../table-definition';

/**
 * One end user's history (issue 34, docs/data-model.md pattern 16b), numbered as the account's
 * is: the start's transaction takes the next position on the end user's item and notes it under
 * the task id (a transaction cannot return a counter); the settle moves it onto the task with its
 * gsi1 entry and removes the note, once. No round trip of its own: the part rides in the start's
 * transaction, the note is read beside the account's, and the settle part joins the settle's.
 */

const COUNT_ATTRIBUTE: Record<TaskKind, string> = { video: 'video_count', image: 'image_count' };
/** Top-level, not in a map: the first start of an end user creates the item, and `SET map.key` needs the map. */
const noteOf = (taskId: string) => `pending_${taskId}`;

/** The part of the start's transaction (start.ts) for a task naming an end user: no condition, so it never changes a refusal. */
export function endUserHistoryPart(db: Db, task: Omit<Task, 'seq'>): ['endUserHistory', TransactWriteItem] | undefined {
  if (task.endUser === undefined) return undefined;
  return [
    'endUserHistory',
    {
      Update: {
        TableName: db.tableName,
        Key: endUserKey(task.partitionId, task.endUser),
        // Operands read the item before the update, so the note holds the new position.
        UpdateExpression: 'SET #count = if_not_exists(#count, :zero) + :one, #note = if_not_exists(#count, :zero) + :one, first_seen_at = if_not_exists(first_seen_at, :now)',
        ExpressionAttributeNames: { '#count': COUNT_ATTRIBUTE[task.kind], '#note': noteOf(task.taskId) },
        ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':now': task.createdAt },
      },
    },
  ];
}

/** The end-user position a start noted and not yet settled; undefined without an end user, or once settled (or started before this history). */
export async function readEndUserNote(db: Db, task: Task): Promise<number | undefined> {
  if (task.endUser === undefined) return undefined;
  const { Item } = await db.doc.send(
    new GetCommand({
      TableName: db.tableName,
      Key: endUserKey(task.partitionId, task.endUser),
      ConsistentRead: true,
      ProjectionExpression: '#note',
      ExpressionAttributeNames: { '#note': noteOf(task.taskId) },
    }),
  );
  const note = Item?.[noteOf(task.taskId)];
  return note === undefined ? undefined : Number(note);
}

/**
 * What a settle (start.ts, or the repair's refund transaction) adds for a noted end-user
 * position: the task's SET clauses and values, and the part removing the note while it still
 * holds that position (so the end user's position, as the account's, is settled once).
 */
export function endUserSettle(db: Db, task: Task, endUserSeq: number) {
  const entry = endUserHistoryEntry(task.partitionId, task.endUser!, task.kind, endUserSeq);
  return {
    set: ['end_user_seq = :endUserSeq', 'gsi1pk = :endUserPk', 'gsi1sk = :endUserSk'],
    values: { ':endUserSeq': endUserSeq, ':endUserPk': entry.gsi1pk, ':endUserSk': entry.gsi1sk },
    part: [
      'endUser',
      {
        Update: {
          TableName: db.tableName,
          Key: endUserKey(task.partitionId, task.endUser!),
          UpdateExpression: 'REMOVE #note',
          ConditionExpression: '#note = :seq',
          ExpressionAttributeNames: { '#note': noteOf(task.taskId) },
          ExpressionAttributeValues: { ':seq': endUserSeq },
        },
      },
    ] as ['endUser', TransactWriteItem],
  };
}

/**
 * One page, newest first, of one end user's tasks of a kind: its count (one consistent GetItem),
 * then one range read of gsi1 by position, so it costs the page's items whatever the account's
 * size. gsi1 is eventually consistent: a task settled a moment ago may be missing from it briefly.
 */
export async function listEndUserPage(db: Db, partitionId: string, endUser: string, kind: TaskKind, page: number, limit: number) {
  const { Item } = await db.doc.send(
    new GetCommand({
      TableName: db.tableName,
      Key: endUserKey(partitionId, endUser),
      ConsistentRead: true,
      ProjectionExpression: '#count',
      ExpressionAttributeNames: { '#count': COUNT_ATTRIBUTE[kind] },
    }),
  );
  const total = Number(Item?.[COUNT_ATTRIBUTE[kind]] ?? 0);
  const { gsi1 } = TABLE_DEFINITION;
  const items = await positionPageOn(
    db,
    { indexName: gsi1.indexName, partitionKey: gsi1.partitionKey, sortKey: gsi1.sortKey, value: endUserPartition(partitionId, endUser), consistent: false },
    (seq) => endUserHistoryEntry(partitionId, endUser, kind, seq).gsi1sk,
    { total, page, limit },
  );
  return { tasks: items.map(fromTaskItem), total };
}
