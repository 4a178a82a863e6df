import { PutCommand, QueryCommand, type TransactWriteItem } from '@aws-sdk/lib-dynamodb';
import { auditExpiresAt, type AuditAction, type AuditDetails, type AuditEntry, type AuditPage, type AuditTargetType, type ActorType } from '#domain/shared/audit';
import type { AuditLog } from '#domain/shared/ports';
import type { Db } from '../dynamo-client';
import { auditKey, auditPartition } from '../keys';

/**
 * Audit entries (docs/data-model.md, "audit entry"): `auditPart` is the named part a change's
 * own transaction carries, so the entry and the change commit together or not at all.
 */
interface AuditItem {
  pk: string;
  sk: string;
  type: 'audit_entry';
  id: string;
  account_id: string;
  at: string;
  actor_type: ActorType;
  actor_id: string;
  actor_email: string | null;
  action: AuditAction;
  target_type: AuditTargetType;
  target_id: string;
  ip: string | null;
  user_agent: string | null;
  details: AuditDetails;
  /** TTL: a year after `at`. */
  expires_at: number;
}

function toItem(entry: AuditEntry): AuditItem {
  return {
    ...auditKey(entry.accountId, entry.id),
    type: 'audit_entry',
    id: entry.id,
    account_id: entry.accountId,
    at: entry.at,
    actor_type: entry.actor.type,
    actor_id: entry.actor.id,
    actor_email: entry.actor.email,
    action: entry.action,
    target_type: entry.target.type,
    target_id: entry.target.id,
    ip: entry.origin.ip,
    user_agent: entry.origin.userAgent,
    details: entry.details,
    expires_at: auditExpiresAt(entry.at),
  };
}

function fromItem(item: Record<string, unknown>): AuditEntry {
  const row = item as unknown as AuditItem;
  return {
    id: row.id,
    accountId: row.account_id,
    at: row.at,
    actor: { type: row.actor_type, id: row.actor_id, email: row.actor_email ?? null },
    action: row.action,
    target: { type: row.target_type, id: row.target_id },
    origin: { ip: row.ip ?? null, userAgent: row.user_agent ?? null },
    details: row.details ?? {},
  };
}

/** The `audit` part of a change's transaction: a Put that fails if the entry's key is taken. */
export function auditPart(db: Db, entry: AuditEntry): readonly ['audit', TransactWriteItem] {
  return ['audit', { Put: { TableName: db.tableName, Item: toItem(entry), ConditionExpression: 'attribute_not_exists(pk)' } }];
}

export class DynamoAuditLog implements AuditLog {
  constructor(private readonly db: Db) {}

  async record(entry: AuditEntry): Promise<void> {
    await this.db.doc.send(new PutCommand({ TableName: this.db.tableName, Item: toItem(entry), ConditionExpression: 'attribute_not_exists(pk)' }));
  }

  async page(accountId: string, after: string | undefined, limit: number): Promise<AuditPage> {
    // One more than asked: whether there is a next page, without a second read.
    const { Items = [] } = await this.db.doc.send(
      new QueryCommand({
        TableName: this.db.tableName,
        KeyConditionExpression: after === undefined ? 'pk = :pk' : 'pk = :pk AND sk < :after',
        ExpressionAttributeValues: { ':pk': auditPartition(accountId), ...(after !== undefined && { ':after': auditKey(accountId, after).sk }) },
        ScanIndexForward: false,
        Limit: limit + 1,
      }),
    );
    return { entries: Items.slice(0, limit).map(fromItem), hasMore: Items.length > limit };
  }
}
