import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ApiKeyRecord } from '#domain/api-key';
import { NotFoundError } from '#domain/errors';
import type { KeyMode } from '#domain/mode';
import type { ApiKeyStore } from '#domain/ports';
import { isConditionFailure, type Db } from './dynamo-client';
import { accountPartition, apiKeyByAccount, apiKeyKey, API_KEY_GSI1_PREFIX } from './keys';
import { TABLE_DEFINITION } from './table-definition';

type ApiKeyItem = ReturnType<typeof apiKeyKey> &
  ReturnType<typeof apiKeyByAccount> & {
    type: 'api_key';
    key_id: string;
    key_hash: string;
    account_id: string;
    /** Absent on keys written before test mode existed: live. */
    mode?: KeyMode;
    rate_limit?: number;
    revoked_at?: string;
    created_at: string;
  };

function toApiKeyItem(record: ApiKeyRecord): ApiKeyItem {
  return {
    ...apiKeyKey(record.keyId),
    ...apiKeyByAccount(record.accountId, record.keyId),
    type: 'api_key',
    key_id: record.keyId,
    key_hash: record.keyHash,
    account_id: record.accountId,
    mode: record.mode,
    rate_limit: record.rateLimit,
    revoked_at: record.revokedAt,
    created_at: record.createdAt,
  };
}

function fromApiKeyItem(item: Record<string, unknown>): ApiKeyRecord {
  const row = item as unknown as ApiKeyItem;
  return {
    keyId: row.key_id,
    keyHash: row.key_hash,
    accountId: row.account_id,
    mode: row.mode ?? 'live',
    createdAt: row.created_at,
    ...(row.rate_limit !== undefined && { rateLimit: row.rate_limit }),
    ...(row.revoked_at !== undefined && { revokedAt: row.revoked_at }),
  };
}

export class DynamoApiKeyStore implements ApiKeyStore {
  constructor(private readonly db: Db) {}

  async create(record: ApiKeyRecord): Promise<void> {
    await this.db.doc.send(
      new PutCommand({
        TableName: this.db.tableName,
        Item: toApiKeyItem(record),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async get(keyId: string): Promise<ApiKeyRecord | undefined> {
    // Strongly consistent, so a key works the moment the CLI prints it.
    const { Item } = await this.db.doc.send(
      new GetCommand({ TableName: this.db.tableName, Key: apiKeyKey(keyId), ConsistentRead: true }),
    );
    return Item ? fromApiKeyItem(Item) : undefined;
  }

  async listForAccount(accountId: string): Promise<ApiKeyRecord[]> {
    const { gsi1 } = TABLE_DEFINITION;
    const records: ApiKeyRecord[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.db.doc.send(
        new QueryCommand({
          TableName: this.db.tableName,
          IndexName: gsi1.indexName,
          KeyConditionExpression: `${gsi1.partitionKey} = :pk AND begins_with(${gsi1.sortKey}, :prefix)`,
          ExpressionAttributeValues: { ':pk': accountPartition(accountId), ':prefix': API_KEY_GSI1_PREFIX },
          ExclusiveStartKey: startKey,
        }),
      );
      records.push(...(page.Items ?? []).map(fromApiKeyItem));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return records;
  }

  async revoke(keyId: string, now: string): Promise<ApiKeyRecord> {
    try {
      const { Attributes } = await this.db.doc.send(
        new UpdateCommand({
          TableName: this.db.tableName,
          Key: apiKeyKey(keyId),
          // Keeps the first revocation time when revoked twice.
          UpdateExpression: 'SET revoked_at = if_not_exists(revoked_at, :now)',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':now': now },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return fromApiKeyItem(Attributes ?? {});
    } catch (error) {
      if (isConditionFailure(error)) throw new NotFoundError(`No API key ${keyId}.`);
      throw error;
    }
  }
}
