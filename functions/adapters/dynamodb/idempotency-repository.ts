import { createHash } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { IdempotencyClaim, IdempotencyRecord, IdempotencyStore } from '#domain/tasks/ports';
import type { Db } from './dynamo-client';
import { idempotencyKey } from './keys';

const hashKey = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

export function toIdempotencyItem(claim: IdempotencyClaim): Record<string, unknown> {
  return {
    ...idempotencyKey(claim.accountId, hashKey(claim.key)),
    type: 'idempotency',
    account_id: claim.accountId,
    request_hash: claim.requestHash,
    task_id: claim.taskId,
    created_at: claim.createdAt,
    expires_at: claim.expiresAt,
  };
}

/** A stored record as the domain's (the claim's key: the caller's, as the item holds only its hash). */
export function fromIdempotencyItem(item: Record<string, unknown>, claim: Pick<IdempotencyClaim, 'accountId' | 'key'>): IdempotencyRecord {
  return {
    accountId: claim.accountId,
    key: claim.key,
    requestHash: item.request_hash as string,
    taskId: item.task_id as string,
    createdAt: item.created_at as string,
    expiresAt: item.expires_at as number,
    ...(item.outcome !== undefined && { outcome: item.outcome as NonNullable<IdempotencyRecord['outcome']> }),
  };
}

export class DynamoIdempotencyStore implements IdempotencyStore {
  constructor(private readonly db: Db) {}

  async get(accountId: string, key: string, now: Date): Promise<IdempotencyRecord | undefined> {
    const { Item } = await this.db.doc.send(
      new GetCommand({
        TableName: this.db.tableName,
        Key: idempotencyKey(accountId, hashKey(key)),
        ConsistentRead: true,
      }),
    );
    // TTL deletes lazily: an expired record is as good as none (the same rule as the
    // takeover condition in DynamoTaskStore.create).
    if (!Item || Item.expires_at <= Math.floor(now.getTime() / 1000)) return undefined;
    return fromIdempotencyItem(Item, { accountId, key });
  }

  async recordOutcome(claim: IdempotencyClaim, outcome: NonNullable<IdempotencyRecord['outcome']>): Promise<void> {
    await this.db.doc.send(
      new UpdateCommand({
        TableName: this.db.tableName,
        Key: idempotencyKey(claim.accountId, hashKey(claim.key)),
        UpdateExpression: 'SET outcome = :outcome',
        ExpressionAttributeValues: { ':outcome': outcome },
      }),
    );
  }
}
