import type { TransactWriteItem } from '@aws-sdk/lib-dynamodb';
import { usageCellsOf, type UsageTask } from '#domain/usage/cells';
import type { Db } from '../dynamo-client';
import { usageCellKey } from '../keys';

export type UsagePart = `usage:${string}`;

/**
 * The usage roll-up parts of the start's transaction (`charge`) or the refund's (`refund`): one
 * unconditional ADD per cell, so a missing item or attribute starts at 0 and the parts never
 * change which rule refuses a transaction. Every cell is under the task's partition, whose
 * account item both transactions write already: they add no pair of transactions that can
 * conflict (docs/data-model.md, "Usage roll-ups").
 */
export function usageParts(db: Db, task: UsageTask & { partitionId: string }, what: 'charge' | 'refund'): [UsagePart, TransactWriteItem][] {
  return usageCellsOf(task, what).map((cell) => {
    const attributes = Object.entries(cell.add);
    return [
      `usage:${cell.kind}:${cell.period}`,
      {
        Update: {
          TableName: db.tableName,
          Key: usageCellKey(task.partitionId, cell.kind, cell.period, cell.group),
          UpdateExpression: `ADD ${attributes.map((_, index) => `#a${index} :a${index}`).join(', ')}`,
          ExpressionAttributeNames: Object.fromEntries(attributes.map(([name], index) => [`#a${index}`, name])),
          ExpressionAttributeValues: Object.fromEntries(attributes.map(([, amount], index) => [`:a${index}`, amount])),
        },
      },
    ];
  });
}
