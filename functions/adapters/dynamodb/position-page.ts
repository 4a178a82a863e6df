import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from './dynamo-client';
import { accountPartition } from './keys';
import { TABLE_DEFINITION } from './table-definition';

/** Where numbered items sit: an index, the partition value they share, and whether it can be read consistently (an LSI, not a GSI). */
export interface PositionedList {
  indexName: string;
  partitionKey: string;
  sortKey: string;
  value: string;
  consistent: boolean;
}

/**
 * One page, newest first, of items numbered 1..total in an account's partition on lsi1 (a task
 * history, an endpoint's deliveries). Positions have no gaps, so page p is one exact range: the
 * read costs the page's items, however deep it is.
 */
export function positionPage(
  db: Db,
  accountId: string,
  position: (seq: number) => string,
  range: { total: number; page: number; limit: number },
): Promise<Record<string, unknown>[]> {
  const { lsi1, partitionKey } = TABLE_DEFINITION;
  return positionPageOn(
    db,
    { indexName: lsi1.indexName, partitionKey, sortKey: lsi1.sortKey, value: accountPartition(accountId), consistent: true },
    position,
    range,
  );
}

/** The same page on any index whose sort key is the position (gsi1: an end user's history). */
export async function positionPageOn(
  db: Db,
  list: PositionedList,
  position: (seq: number) => string,
  { total, page, limit }: { total: number; page: number; limit: number },
): Promise<Record<string, unknown>[]> {
  const newest = total - (page - 1) * limit;
  const oldest = Math.max(1, newest - limit + 1);
  if (newest < 1) return [];
  const { Items } = await db.doc.send(
    new QueryCommand({
      TableName: db.tableName,
      IndexName: list.indexName,
      KeyConditionExpression: `${list.partitionKey} = :pk AND ${list.sortKey} BETWEEN :from AND :to`,
      ExpressionAttributeValues: { ':pk': list.value, ':from': position(oldest), ':to': position(newest) },
      ScanIndexForward: false,
      ...(list.consistent && { ConsistentRead: true }),
    }),
  );
  return Items ?? [];
}
