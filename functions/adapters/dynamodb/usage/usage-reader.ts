import { QueryCommand, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import type { GroupKind } from '#domain/usage/cells';
import type { UsageCellRead, UsageReader } from '#domain/usage/ports';
import type { Db } from '../dynamo-client';
import { USAGE_GROUP_PREFIX, usagePartition } from '../keys';

/**
 * Reads usage cells: one Query per (kind, period), consistent (a report right after a start
 * shows it), projecting only the attributes asked for, so bytes follow the range, not the item.
 */
export class DynamoUsageReader implements UsageReader {
  constructor(private readonly db: Db) {}

  async cells(partitionId: string, kind: GroupKind, period: string, attributes: readonly string[]): Promise<UsageCellRead[]> {
    const names = Object.fromEntries(['sk', ...attributes].map((name, index) => [`#p${index}`, name]));
    const cells: UsageCellRead[] = [];
    let start: QueryCommandOutput['LastEvaluatedKey'];
    do {
      const page = await this.db.doc.send(
        new QueryCommand({
          TableName: this.db.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :group)',
          ExpressionAttributeValues: { ':pk': usagePartition(partitionId, kind, period), ':group': USAGE_GROUP_PREFIX },
          ProjectionExpression: Object.keys(names).join(', '),
          ExpressionAttributeNames: names,
          ConsistentRead: true,
          ...(start && { ExclusiveStartKey: start }),
        }),
      );
      for (const item of page.Items ?? []) {
        const group = String(item.sk).slice(USAGE_GROUP_PREFIX.length);
        const values = Object.fromEntries(attributes.filter((name) => typeof item[name] === 'number').map((name) => [name, item[name] as number]));
        cells.push({ group: group === '' ? null : group, values });
      }
      start = page.LastEvaluatedKey;
    } while (start);
    return cells;
  }
}
