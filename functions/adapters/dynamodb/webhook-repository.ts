import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AuditEntry } from '#domain/shared/audit';
import { auditPart } from './audit/audit-put';
import type { TaskEventType, WebhookEndpoint } from '#domain/webhooks/webhooks';
import type { WebhookStore } from '#domain/webhooks/ports';
import { isConditionFailure, type Db } from './dynamo-client';
import { accountKey, accountPartition, WEBHOOK_SK_PREFIX, webhookKey } from './keys';
import { retryOnConflict } from './retry';
import { TABLE_DEFINITION } from './table-definition';
import { transact, TransactionRefused } from './transaction';

/** Webhook endpoints, one item each in the account partition; the account item counts them. */
export class DynamoWebhookStore implements WebhookStore {
  constructor(private readonly db: Db) {}

  async create(endpoint: WebhookEndpoint, max: number, entry: AuditEntry): Promise<boolean> {
    try {
      await retryOnConflict('webhook create', () =>
        transact(this.db, [
          [
            'count',
            {
              // The count and the limit in one conditional write: racing creates cannot pass it.
              Update: {
                TableName: this.db.tableName,
                Key: accountKey(endpoint.accountId),
                UpdateExpression: 'ADD webhook_count :one',
                ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(webhook_count) OR webhook_count < :max)',
                ExpressionAttributeValues: { ':one': 1, ':max': max },
              },
            },
          ],
          ['endpoint', { Put: { TableName: this.db.tableName, Item: toWebhookItem(endpoint), ConditionExpression: 'attribute_not_exists(pk)' } }],
          auditPart(this.db, entry),
        ]),
      );
      return true;
    } catch (error) {
      if (error instanceof TransactionRefused && error.failed('count')) return false;
      throw error;
    }
  }

  async get(accountId: string, webhookId: string): Promise<WebhookEndpoint | undefined> {
    const { Item } = await this.db.doc.send(
      new GetCommand({ TableName: this.db.tableName, Key: webhookKey(accountId, webhookId), ConsistentRead: true }),
    );
    return Item ? fromWebhookItem(Item) : undefined;
  }

  async list(accountId: string): Promise<WebhookEndpoint[]> {
    const { Items } = await this.db.doc.send(
      // On lsi1, so that the function listing endpoints needs no Query on the base table.
      new QueryCommand({
        TableName: this.db.tableName,
        IndexName: TABLE_DEFINITION.lsi1.indexName,
        KeyConditionExpression: `pk = :pk AND begins_with(${TABLE_DEFINITION.lsi1.sortKey}, :prefix)`,
        ExpressionAttributeValues: { ':pk': accountPartition(accountId), ':prefix': WEBHOOK_SK_PREFIX },
        ConsistentRead: true,
      }),
    );
    return (Items ?? []).map(fromWebhookItem);
  }

  async delete(accountId: string, webhookId: string, entry: AuditEntry): Promise<boolean> {
    try {
      await retryOnConflict('webhook delete', () =>
        transact(this.db, [
          ['endpoint', { Delete: { TableName: this.db.tableName, Key: webhookKey(accountId, webhookId), ConditionExpression: 'attribute_exists(pk)' } }],
          [
            'count',
            {
              Update: {
                TableName: this.db.tableName,
                Key: accountKey(accountId),
                UpdateExpression: 'ADD webhook_count :minusOne',
                ExpressionAttributeValues: { ':minusOne': -1 },
              },
            },
          ],
          auditPart(this.db, entry),
        ]),
      );
      return true;
    } catch (error) {
      if (error instanceof TransactionRefused && error.failed('endpoint')) return false;
      throw error;
    }
  }

  async claimTest(seen: WebhookEndpoint, test: { eventId: string; at: string }): Promise<boolean> {
    try {
      await this.db.doc.send(
        new UpdateCommand({
          TableName: this.db.tableName,
          Key: webhookKey(seen.accountId, seen.webhookId),
          UpdateExpression: 'SET last_test_event_id = :event, last_test_at = :at',
          ConditionExpression: seen.lastTest
            ? 'attribute_exists(pk) AND last_test_event_id = :seen'
            : 'attribute_exists(pk) AND attribute_not_exists(last_test_event_id)',
          ExpressionAttributeValues: { ':event': test.eventId, ':at': test.at, ...(seen.lastTest && { ':seen': seen.lastTest.eventId }) },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}

function toWebhookItem(endpoint: WebhookEndpoint): Record<string, unknown> {
  return {
    ...webhookKey(endpoint.accountId, endpoint.webhookId),
    lsi1sk: webhookKey(endpoint.accountId, endpoint.webhookId).sk,
    type: 'webhook',
    webhook_id: endpoint.webhookId,
    account_id: endpoint.accountId,
    url: endpoint.url,
    events: endpoint.events,
    description: endpoint.description,
    secret: endpoint.secret,
    created_at: endpoint.createdAt,
    delivery_count: 0,
  };
}

function fromWebhookItem(item: Record<string, unknown>): WebhookEndpoint {
  return {
    webhookId: String(item.webhook_id),
    accountId: String(item.account_id),
    url: String(item.url),
    events: item.events as TaskEventType[],
    description: typeof item.description === 'string' ? item.description : null,
    secret: String(item.secret),
    createdAt: String(item.created_at),
    lastTest:
      typeof item.last_test_event_id === 'string' ? { eventId: item.last_test_event_id, at: String(item.last_test_at) } : null,
  };
}
