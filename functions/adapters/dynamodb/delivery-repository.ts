import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AttemptOutcome, Delivery, DeliveryMessage } from '#domain/webhooks/deliveries';
import type { DeliveryStore } from '#domain/webhooks/ports';
import type { EventType } from '#domain/webhooks/webhooks';
import { isConditionFailure, type Db } from './dynamo-client';
import {
  deliveryKey,
  deliveryListKey,
  deliveryRefOf,
  IN_FLIGHT_SHARDS,
  pendingDeliveryEntry,
  pendingDeliveryPartition,
  webhookKey,
} from './keys';
import { positionPage } from './position-page';
import { AGAIN, withRetries } from './retry';
import { TABLE_DEFINITION } from './table-definition';
import { transact, TransactionRefused } from './transaction';

/** Delivery records are kept 30 days (TTL), long after the 24 h of retries. */
const RETENTION_SECONDS = 30 * 24 * 60 * 60;
const DUE_PAGE = 100;

/**
 * Deliveries: one item per (endpoint, event), in the account partition. Each takes the next
 * position in its endpoint's list from a counter on the endpoint item, written in one
 * transaction with the delivery on the condition that the count has not moved (as ledger
 * positions are, ledger-positions.ts), so positions have no gaps and a page is one range read
 * on lsi1, as for the task history.
 */
export class DynamoDeliveryStore implements DeliveryStore {
  constructor(private readonly db: Db) {}

  async create(delivery: Delivery): Promise<boolean> {
    // Most repeats stop here, before they read the endpoint's count.
    if (await this.get(delivery)) return false;
    return withRetries('delivery create', async () => {
      const { Item: endpoint } = await this.db.doc.send(
        new GetCommand({ TableName: this.db.tableName, Key: webhookKey(delivery.accountId, delivery.webhookId), ConsistentRead: true }),
      );
      if (!endpoint) return false; // the endpoint was deleted
      const seen = Number(endpoint.delivery_count ?? 0);
      try {
        // The position and the delivery in one transaction, so a racing repeat takes no position it does not use.
        await transact(this.db, [
          [
            'position',
            {
              Update: {
                TableName: this.db.tableName,
                Key: webhookKey(delivery.accountId, delivery.webhookId),
                UpdateExpression: 'SET delivery_count = :next',
                ConditionExpression:
                  seen === 0 ? 'attribute_exists(pk) AND (attribute_not_exists(delivery_count) OR delivery_count = :seen)' : 'delivery_count = :seen',
                ExpressionAttributeValues: { ':seen': seen, ':next': seen + 1 },
              },
            },
          ],
          ['delivery', { Put: { TableName: this.db.tableName, Item: toDeliveryItem(delivery, seen + 1), ConditionExpression: 'attribute_not_exists(pk)' } }],
        ]);
        return true;
      } catch (error) {
        if (!(error instanceof TransactionRefused)) throw error;
        if (error.failed('delivery')) return false; // a repeat got there first
        // Another delivery to this endpoint took the position (or the endpoint went, or a write held it): read it again.
        if (error.failed('position') || error.conflict) return AGAIN;
        throw error;
      }
    });
  }

  async get(message: DeliveryMessage): Promise<Delivery | undefined> {
    const { Item } = await this.db.doc.send(
      new GetCommand({
        TableName: this.db.tableName,
        Key: deliveryKey(message.accountId, message.webhookId, message.eventId),
        ConsistentRead: true,
      }),
    );
    return Item ? fromDeliveryItem(Item) : undefined;
  }

  async reopen(seen: Delivery, now: string): Promise<boolean> {
    const entry = pendingDeliveryEntry(now, seen.webhookId, seen.eventId);
    try {
      await this.db.doc.send(
        new UpdateCommand({
          TableName: this.db.tableName,
          Key: deliveryKey(seen.accountId, seen.webhookId, seen.eventId),
          UpdateExpression: 'SET #status = :pending, next_attempt_at = :now, gsi2pk = :gsi2pk, gsi2sk = :gsi2sk',
          // Unchanged since it was read: of racing retries (or a retry racing an attempt) one wins.
          ConditionExpression:
            '#status = :seenStatus AND attempts = :seenAttempts AND ' +
            (seen.nextAttemptAt === null ? 'attribute_type(next_attempt_at, :null)' : 'next_attempt_at = :seenNext'),
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':pending': 'pending',
            ':now': now,
            ':gsi2pk': entry.gsi2pk,
            ':gsi2sk': entry.gsi2sk,
            ':seenStatus': seen.status,
            ':seenAttempts': seen.attempts,
            ...(seen.nextAttemptAt === null ? { ':null': 'NULL' } : { ':seenNext': seen.nextAttemptAt }),
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async recordAttempt(seen: Delivery, next: AttemptOutcome): Promise<boolean> {
    const pendingEntry =
      next.status === 'pending' && next.nextAttemptAt ? pendingDeliveryEntry(next.nextAttemptAt, seen.webhookId, seen.eventId) : undefined;
    try {
      await this.db.doc.send(
        new UpdateCommand({
          TableName: this.db.tableName,
          Key: deliveryKey(seen.accountId, seen.webhookId, seen.eventId),
          // A pending delivery keeps its entry in the pending list, moved to its new due time.
          UpdateExpression:
            'SET #status = :status, attempts = :attempts, last_status_code = :code, last_error = :error, last_attempt_at = :at, next_attempt_at = :next' +
            (pendingEntry ? ', gsi2pk = :gsi2pk, gsi2sk = :gsi2sk' : ' REMOVE gsi2pk, gsi2sk'),
          ConditionExpression: '#status = :pending AND attempts = :seen',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':status': next.status,
            ':attempts': next.attempts,
            ':code': next.lastStatusCode,
            ':error': next.lastError,
            ':at': next.lastAttemptAt,
            ':next': next.nextAttemptAt,
            ':pending': 'pending',
            ':seen': seen.attempts,
            ...(pendingEntry && { ':gsi2pk': pendingEntry.gsi2pk, ':gsi2sk': pendingEntry.gsi2sk }),
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  listDue(before: string): AsyncIterable<DeliveryMessage>[] {
    return Array.from({ length: IN_FLIGHT_SHARDS }, (_, shard) => this.dueInShard(pendingDeliveryPartition(shard), before));
  }

  private async *dueInShard(partition: string, before: string): AsyncGenerator<DeliveryMessage> {
    const { gsi2 } = TABLE_DEFINITION;
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.db.doc.send(
        new QueryCommand({
          TableName: this.db.tableName,
          IndexName: gsi2.indexName,
          KeyConditionExpression: `${gsi2.partitionKey} = :pk AND ${gsi2.sortKey} < :before`,
          ExpressionAttributeValues: { ':pk': partition, ':before': before },
          ExclusiveStartKey: startKey,
          Limit: DUE_PAGE,
        }),
      );
      for (const item of page.Items ?? []) yield deliveryRefOf(item as { pk: string; sk: string });
      startKey = page.LastEvaluatedKey;
    } while (startKey);
  }

  async listPage(accountId: string, webhookId: string, page: number, limit: number) {
    const { Item } = await this.db.doc.send(
      new GetCommand({ TableName: this.db.tableName, Key: webhookKey(accountId, webhookId), ConsistentRead: true }),
    );
    const total = Number(Item?.delivery_count ?? 0);
    const items = await positionPage(this.db, accountId, (seq) => deliveryListKey(webhookId, seq), { total, page, limit });
    return { deliveries: items.map(fromDeliveryItem), total };
  }
}

function toDeliveryItem(delivery: Delivery, seq: number): Record<string, unknown> {
  return {
    ...deliveryKey(delivery.accountId, delivery.webhookId, delivery.eventId),
    lsi1sk: deliveryListKey(delivery.webhookId, seq),
    ...(delivery.status === 'pending' && delivery.nextAttemptAt && pendingDeliveryEntry(delivery.nextAttemptAt, delivery.webhookId, delivery.eventId)),
    type: 'delivery',
    account_id: delivery.accountId,
    webhook_id: delivery.webhookId,
    event_id: delivery.eventId,
    event_type: delivery.type,
    payload: delivery.payload,
    status: delivery.status,
    attempts: delivery.attempts,
    last_status_code: delivery.lastStatusCode,
    last_error: delivery.lastError,
    last_attempt_at: delivery.lastAttemptAt,
    next_attempt_at: delivery.nextAttemptAt,
    created_at: delivery.createdAt,
    expires_at: Math.floor(Date.parse(delivery.createdAt) / 1000) + RETENTION_SECONDS,
  };
}

function fromDeliveryItem(item: Record<string, unknown>): Delivery {
  const nullable = <T>(value: unknown) => (value === undefined || value === null ? null : (value as T));
  return {
    accountId: String(item.account_id),
    webhookId: String(item.webhook_id),
    eventId: String(item.event_id),
    type: item.event_type as EventType,
    payload: String(item.payload),
    status: item.status as Delivery['status'],
    attempts: Number(item.attempts),
    lastStatusCode: nullable<number>(item.last_status_code),
    lastError: nullable<string>(item.last_error),
    lastAttemptAt: nullable<string>(item.last_attempt_at),
    nextAttemptAt: nullable<string>(item.next_attempt_at),
    createdAt: String(item.created_at),
  };
}
