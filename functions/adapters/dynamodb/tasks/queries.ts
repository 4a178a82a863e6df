import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { InFlightList, TaskRef } from '#domain/tasks/ports';
import type { Task, TaskKind } from '#domain/tasks/task';
import { DynamoAccountStore } from '../account-repository';
import type { Db } from '../dynamo-client';
import { endedPartition, IN_FLIGHT_SHARDS, inFlightPartition, outputsPartition, phasePartition, taskHistoryKey, taskKey, taskRefOf } from '../keys';
import { positionPage } from '../position-page';
import { fromTaskItem } from '../task-item';
import { TABLE_DEFINITION } from '../table-definition';

/** Keys per in-flight page (keys-only items: about 150 bytes each). */
const IN_FLIGHT_PAGE = 500;

export async function getTask(db: Db, accountId: string, taskId: string): Promise<Task | undefined> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: taskKey(accountId, taskId), ConsistentRead: true }));
  // A discarded draft (its charge was refused) never existed as far as anyone else can tell.
  if (!Item || (Item.seq === undefined && Item.expires_at !== undefined)) return undefined;
  return fromTaskItem(Item);
}

/** One page of an account's history of a kind, newest first: one range read by position. */
export async function listTaskPage(db: Db, accountId: string, kind: TaskKind, page: number, limit: number) {
  const account = await new DynamoAccountStore(db).get(accountId);
  const total = account?.taskCounts[kind] ?? 0;
  const items = await positionPage(db, accountId, (seq) => taskHistoryKey(kind, seq), { total, page, limit });
  return { tasks: items.map(fromTaskItem), total };
}

/** One in-flight list (a phase's, or the tasks not moved since their start): one stream per shard, each oldest first. */
export function listInFlight(db: Db, list: InFlightList): AsyncIterable<TaskRef>[] {
  return Array.from({ length: IN_FLIGHT_SHARDS }, (_, shard) =>
    indexShard(db, list === 'unmoved' ? inFlightPartition(shard) : phasePartition(list, shard)),
  );
}

/** A partition's stored outputs completed before `before` (gsi2 OUTPUTS#, by completion; keys.ts). */
export function listCompletedBefore(db: Db, partitionId: string, before: string): AsyncIterable<TaskRef> {
  return indexShard(db, outputsPartition(partitionId), before);
}

/** Ended tasks whose events may not be published yet (the outbox), in the same shards. */
export function listUnannounced(db: Db): AsyncIterable<TaskRef>[] {
  return Array.from({ length: IN_FLIGHT_SHARDS }, (_, shard) => indexShard(db, endedPartition(shard)));
}

async function* indexShard(db: Db, partition: string, sortKeyBelow?: string): AsyncGenerator<TaskRef> {
  const { gsi2 } = TABLE_DEFINITION;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db.doc.send(
      new QueryCommand({
        TableName: db.tableName,
        IndexName: gsi2.indexName,
        KeyConditionExpression: `${gsi2.partitionKey} = :pk${sortKeyBelow === undefined ? '' : ` AND ${gsi2.sortKey} < :below`}`,
        ExpressionAttributeValues: { ':pk': partition, ...(sortKeyBelow !== undefined && { ':below': sortKeyBelow }) },
        ExclusiveStartKey: startKey,
        Limit: IN_FLIGHT_PAGE,
      }),
    );
    for (const item of page.Items ?? []) yield taskRefOf(item as { pk: string; sk: string });
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}
