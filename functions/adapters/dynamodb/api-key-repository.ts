import { BatchGetCommand, type BatchGetCommandOutput, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ApiKeyRecord, KeyScope } from '#domain/accounts/api-key';
import { NotFoundError } from '#domain/shared/errors';
import type { KeyMode } from '#domain/shared/partition';
import type { ApiKeyChanges, ApiKeyStore, KeyChangeAudit } from '#domain/accounts/ports';
import { applyKeyChanges } from '#domain/accounts/key-management';
import type { AuditEntry } from '#domain/shared/audit';
import { auditPart } from './audit/audit-put';
import { isConditionFailure, type Db } from './dynamo-client';
import { accountPartition, apiKeyByAccount, apiKeyCountKey, apiKeyKey, API_KEY_GSI1_PREFIX, keySpendKey } from './keys';
import { AGAIN, isConflict, retryOnConflict, withRetries } from './retry';
import { TABLE_DEFINITION } from './table-definition';
import { transact, TransactionRefused } from './transaction';

type ApiKeyItem = ReturnType<typeof apiKeyKey> &
  ReturnType<typeof apiKeyByAccount> & {
    type: 'api_key';
    key_id: string;
    key_hash: string;
    account_id: string;
    /** Absent on keys written before test mode existed: live. */
    mode?: KeyMode;
    rate_limit?: number;
    name?: string;
    scopes?: KeyScope[];
    /** Not `expires_at`: that is the table's TTL attribute, and an expired key stays listed. */
    key_expires_at?: string;
    monthly_spend_limit?: number;
    end_user_monthly_spend_limit?: number;
    prefix?: string;
    last_used_at?: string;
    /** True when the key holds a place in its account's count (keys made before the count did not). */
    counted?: boolean;
    revoked_at?: string;
    created_at: string;
    /** A holder id or `operator`; absent on keys made before issue 36. */
    created_by?: string;
    /** Bumped by every PATCH: the guard of a change made from a read. */
    version?: number;
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
    name: record.name,
    scopes: record.scopes,
    key_expires_at: record.expiresAt,
    monthly_spend_limit: record.monthlySpendLimit,
    end_user_monthly_spend_limit: record.endUserMonthlySpendLimit,
    prefix: record.prefix,
    last_used_at: record.lastUsedAt,
    counted: true,
    revoked_at: record.revokedAt,
    created_at: record.createdAt,
    created_by: record.createdBy,
    version: record.version,
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
    ...(row.name !== undefined && { name: row.name }),
    ...(row.scopes !== undefined && { scopes: row.scopes }),
    ...(row.key_expires_at !== undefined && { expiresAt: row.key_expires_at }),
    ...(row.monthly_spend_limit !== undefined && { monthlySpendLimit: row.monthly_spend_limit }),
    ...(row.end_user_monthly_spend_limit !== undefined && { endUserMonthlySpendLimit: row.end_user_monthly_spend_limit }),
    ...(row.prefix !== undefined && { prefix: row.prefix }),
    ...(row.last_used_at !== undefined && { lastUsedAt: row.last_used_at }),
    ...(row.revoked_at !== undefined && { revokedAt: row.revoked_at }),
    ...(row.created_by !== undefined && { createdBy: row.created_by }),
    ...(row.version !== undefined && { version: row.version }),
  };
}

/** BatchGetItem takes at most 100 keys a call. */
const BATCH_GET_MAX = 100;

export class DynamoApiKeyStore implements ApiKeyStore {
  constructor(private readonly db: Db) {}

  async create(record: ApiKeyRecord, maxActive: number, entry: AuditEntry): Promise<boolean> {
    try {
      // Racing creates of one account meet on its count: a transaction that met another is tried again.
      await retryOnConflict('API key create', () =>
        transact(this.db, [
          [
            'count',
            {
              // The count and the limit in one conditional write: racing creates cannot pass it.
              Update: {
                TableName: this.db.tableName,
                Key: apiKeyCountKey(record.accountId),
                UpdateExpression: 'ADD active_keys :one',
                ConditionExpression: 'attribute_not_exists(active_keys) OR active_keys < :max',
                ExpressionAttributeValues: { ':one': 1, ':max': maxActive },
              },
            },
          ],
          ['key', { Put: { TableName: this.db.tableName, Item: toApiKeyItem(record), ConditionExpression: 'attribute_not_exists(pk)' } }],
          auditPart(this.db, entry),
        ]),
      );
      return true;
    } catch (error) {
      if (!(error instanceof TransactionRefused)) throw error;
      if (error.failed('count')) return false;
      if (error.failed('key')) throw new Error(`API key ${record.keyId} already exists.`, { cause: error });
      throw error;
    }
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

  async update(accountId: string, keyId: string, changes: ApiKeyChanges, audit: KeyChangeAudit): Promise<ApiKeyRecord | undefined> {
    // Read, change, and write back only if no other change came between (the key's version):
    // the entry's `from` is then exactly what the change replaced.
    return withRetries('API key update', async () => {
      const before = await this.get(keyId);
      if (before?.accountId !== accountId) return undefined;
      const after = applyKeyChanges(before, changes);
      const entry = audit(before, after);
      if (!entry) return before;
      const version = before.version ?? 0;
      const set: string[] = ['version = :next'];
      const remove: string[] = [];
      const values: Record<string, unknown> = { ':account': accountId, ':next': version + 1, ...(version > 0 && { ':version': version }) };
      if (changes.name !== undefined) {
        set.push('#name = :name');
        values[':name'] = changes.name;
      }
      if (changes.scopes !== undefined) {
        set.push('scopes = :scopes');
        values[':scopes'] = changes.scopes;
      }
      if (changes.monthlySpendLimit === null) remove.push('monthly_spend_limit');
      else if (changes.monthlySpendLimit !== undefined) {
        set.push('monthly_spend_limit = :limit');
        values[':limit'] = changes.monthlySpendLimit;
      }
      if (changes.endUserMonthlySpendLimit === null) remove.push('end_user_monthly_spend_limit');
      else if (changes.endUserMonthlySpendLimit !== undefined) {
        set.push('end_user_monthly_spend_limit = :endUserLimit');
        values[':endUserLimit'] = changes.endUserMonthlySpendLimit;
      }
      try {
        await transact(this.db, [
          [
            'key',
            {
              Update: {
                TableName: this.db.tableName,
                Key: apiKeyKey(keyId),
                UpdateExpression: [`SET ${set.join(', ')}`, remove.length > 0 ? `REMOVE ${remove.join(', ')}` : ''].join(' ').trim(),
                ConditionExpression: `attribute_exists(pk) AND account_id = :account AND ${version > 0 ? 'version = :version' : 'attribute_not_exists(version)'}`,
                ...(changes.name !== undefined && { ExpressionAttributeNames: { '#name': 'name' } }),
                ExpressionAttributeValues: values,
              },
            },
          ],
          auditPart(this.db, entry),
        ]);
        return { ...after, version: version + 1 };
      } catch (error) {
        // Changed (or revoked) meanwhile: read it again; another writer holding it: try again.
        if ((error instanceof TransactionRefused && error.failed('key')) || isConflict(error)) return AGAIN;
        throw error;
      }
    });
  }

  async revoke(keyId: string, now: string, audit: (record: ApiKeyRecord) => AuditEntry, accountId?: string): Promise<ApiKeyRecord> {
    const notFound = () => new NotFoundError(`No API key with id "${keyId}".`);
    const { Item } = await this.db.doc.send(
      new GetCommand({ TableName: this.db.tableName, Key: apiKeyKey(keyId), ConsistentRead: true }),
    );
    if (!Item || (accountId !== undefined && Item.account_id !== accountId)) throw notFound();
    if (Item.revoked_at !== undefined) return fromApiKeyItem(Item);
    const revoke = {
      TableName: this.db.tableName,
      Key: apiKeyKey(keyId),
      UpdateExpression: 'SET revoked_at = :now',
      // Only the first revoke writes (and frees the key's place in the count): a second keeps the first time.
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(revoked_at)',
      ExpressionAttributeValues: { ':now': now },
    };
    const entry = audit(fromApiKeyItem(Item));
    try {
      await retryOnConflict<unknown>('API key revoke', () =>
        transact(this.db, [
          ['key', { Update: revoke }],
          Item.counted === true && [
            'count',
            {
              Update: {
                TableName: this.db.tableName,
                Key: apiKeyCountKey(String(Item.account_id)),
                UpdateExpression: 'ADD active_keys :minusOne',
                ExpressionAttributeValues: { ':minusOne': -1 },
              },
            },
          ],
          auditPart(this.db, entry),
        ]),
      );
    } catch (error) {
      // Revoked meanwhile by another request: answer with the time that one wrote (and its entry).
      if (!(error instanceof TransactionRefused && error.failed('key'))) throw error;
    }
    const revoked = await this.get(keyId);
    if (!revoked) throw notFound();
    return revoked;
  }

  async recordUse(keyId: string, at: string): Promise<void> {
    try {
      await this.db.doc.send(
        new UpdateCommand({
          TableName: this.db.tableName,
          Key: apiKeyKey(keyId),
          UpdateExpression: 'SET last_used_at = :at',
          // Never moves back (two functions may note the same minute out of order).
          ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(last_used_at) OR last_used_at < :at)',
          ExpressionAttributeValues: { ':at': at },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  async spentInMonth(keyIds: readonly string[], month: string): Promise<Map<string, number>> {
    const spent = new Map<string, number>();
    for (let start = 0; start < keyIds.length; start += BATCH_GET_MAX) {
      let keys: Record<string, unknown>[] | undefined = keyIds.slice(start, start + BATCH_GET_MAX).map((keyId) => ({ ...keySpendKey(keyId, month) }));
      while (keys && keys.length > 0) {
        const answer: BatchGetCommandOutput = await this.db.doc.send(
          new BatchGetCommand({ RequestItems: { [this.db.tableName]: { Keys: keys, ProjectionExpression: 'key_id, spent' } } }),
        );
        for (const item of answer.Responses?.[this.db.tableName] ?? []) spent.set(String(item.key_id), Number(item.spent ?? 0));
        keys = answer.UnprocessedKeys?.[this.db.tableName]?.Keys;
      }
    }
    return spent;
  }
}
