import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from './dynamo-client';
import { accountPartition } from './keys';
import { TABLE_DEFINITION } from './table-definition';

/**
 * One page, newest first, of items numbered 1..total in an account's partition on lsi1 (a task
 * history, an endpoint's deliveries). Positions have no gaps, so page p is one exact range: the
 * read costs the page's items, however deep it is.
 */
export async function positionPage(
  db: Db,
  accountId: string,
  position: (seq: number) => string,
  { total, page, limit }: { total: number; page: number; limit: number },
): Promise<Record<string, unknown>[]> {
  const newest = total - (page - 1) * limit;
  const oldest = Math.max(1, newest - limit + 1);
  if (newest < 1) return [];
  const { lsi1, partitionKey } = TABLE_DEFINITION;
  const { Items } = await db.doc.send(
    new QueryCommand({
      TableName: db.tableName,
      IndexName: lsi1.indexName,
      KeyConditionExpression: `${partitionKey} = :pk AND ${lsi1.sortKey} BETWEEN :from AND :to`,
      ExpressionAttributeValues: { ':pk': accountPartition(accountId), ':from': position(oldest), ':to': position(newest) },
      ScanIndexForward: false,
      ConsistentRead: true,
    }),
  );
  return Items ?? [];
}
