import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { LedgerEntry, LedgerKind } from '#domain/accounts/ledger';
import type { LedgerStore } from '#domain/accounts/ports';
import type { Db } from './dynamo-client';
import { accountPartition, ledgerEntryKey, ledgerPositionKey, LEDGER_SK_PREFIX } from './keys';
import { readLedgerCount } from './ledger-positions';
import { positionPage } from './position-page';

type LedgerItem = ReturnType<typeof ledgerEntryKey> & {
  type: 'ledger';
  entry_id: string;
  account_id: string;
  kind: LedgerKind;
  amount: number;
  reason: string;
  task_id?: string;
  created_at: string;
  /** Position in the scope's ledger (1..ledger_count); lsi1sk = LEDGER#<seq>. */
  seq: number;
  lsi1sk: string;
};

export function toLedgerItem(entry: LedgerEntry, position: number): LedgerItem {
  return {
    ...ledgerEntryKey(entry.accountId, entry.entryId),
    type: 'ledger',
    seq: position,
    lsi1sk: ledgerPositionKey(position),
    entry_id: entry.entryId,
    account_id: entry.accountId,
    kind: entry.kind,
    amount: entry.amount,
    reason: entry.reason,
    task_id: entry.taskId,
    created_at: entry.createdAt,
  };
}

function fromLedgerItem(item: Record<string, unknown>): LedgerEntry {
  const row = item as unknown as LedgerItem;
  return {
    entryId: row.entry_id,
    accountId: row.account_id,
    kind: row.kind,
    amount: row.amount,
    reason: row.reason,
    createdAt: row.created_at,
    ...(row.task_id && { taskId: row.task_id }),
  };
}

/**
 * The Put of one ledger entry at its position (ledger-positions.ts), for use inside a
 * transaction. Entries are never overwritten.
 */
export function ledgerEntryPut(db: Db, entry: LedgerEntry, position: number) {
  return {
    TableName: db.tableName,
    Item: toLedgerItem(entry, position),
    ConditionExpression: 'attribute_not_exists(pk)',
  };
}

export class DynamoLedgerStore implements LedgerStore {
  constructor(private readonly db: Db) {}

  async listPage(accountId: string, page: number, limit: number): Promise<{ entries: LedgerEntry[]; total: number }> {
    const total = (await readLedgerCount(this.db, accountId)) ?? 0;
    const items = await positionPage(this.db, accountId, ledgerPositionKey, { total, page, limit });
    return { entries: items.map(fromLedgerItem), total };
  }

  async listForAccount(accountId: string): Promise<LedgerEntry[]> {
    const entries: LedgerEntry[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.db.doc.send(
        new QueryCommand({
          TableName: this.db.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': accountPartition(accountId), ':prefix': LEDGER_SK_PREFIX },
          ExclusiveStartKey: startKey,
          ConsistentRead: true,
        }),
      );
      entries.push(...(page.Items ?? []).map(fromLedgerItem));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return entries;
  }
}
