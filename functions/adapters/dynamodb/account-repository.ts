import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AuditEntry } from '#domain/shared/audit';
import { auditPart } from './audit/audit-put';
import { AccountExistsError, type Account, type SubscriptionStatus } from '#domain/accounts/account';
import { NotFoundError } from '#domain/shared/errors';
import type { LedgerEntry } from '#domain/accounts/ledger';
import type { AccountStore } from '#domain/accounts/ports';
import { isConditionFailure, type Db } from './dynamo-client';
import { accountKey, IN_FLIGHT_SHARDS, retentionEntryValues, retentionPartition } from './keys';
import { TABLE_DEFINITION } from './table-definition';
import { appendWithRetries, ledgerMoved, slotAfter, type LedgerSlot } from './ledger-positions';
import { AGAIN, isConflict, retryOnConflict, withRetries } from './retry';
import { transact, TransactionRefused } from './transaction';
import { ledgerEntryPut } from './ledger-repository';

/**
 * Map on the account item: task id -> history position, for each start charged but not yet in
 * the ledger (between steps 2 and 4 of DynamoTaskStore.create; usually milliseconds). Ledger sum
 * = balance + the prices of the starts noted here whose task has no position yet.
 */
export const PENDING_STARTS = 'pending_starts';

type AccountItem = ReturnType<typeof accountKey> & {
  type: 'account';
  account_id: string;
  credits: number;
  paid_access: boolean;
  subscription_status: SubscriptionStatus;
  video_count: number;
  image_count: number;
  pending_starts: Record<string, number>;
  pending_charges: Record<string, number>;
  ledger_count: number;
  created_at: string;
  updated_at: string;
  output_retention_days?: number;
};

export function toAccountItem(account: Account): AccountItem {
  return {
    ...accountKey(account.accountId),
    type: 'account',
    account_id: account.accountId,
    credits: account.credits,
    paid_access: account.paidAccess,
    subscription_status: account.subscriptionStatus,
    video_count: account.taskCounts.video,
    image_count: account.taskCounts.image,
    pending_starts: {},
    pending_charges: {},
    ledger_count: 0,
    created_at: account.createdAt,
    updated_at: account.updatedAt,
  };
}

export function fromAccountItem(item: Record<string, unknown>): Account {
  const row = item as unknown as AccountItem;
  return {
    accountId: row.account_id,
    credits: row.credits,
    paidAccess: row.paid_access,
    subscriptionStatus: row.subscription_status,
    taskCounts: { video: row.video_count ?? 0, image: row.image_count ?? 0 },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(row.output_retention_days !== undefined && { outputRetentionDays: row.output_retention_days }),
  };
}

/**
 * Adds `amount` to an existing account's balance and takes the ledger slot its entry goes in,
 * for use inside a transaction with that entry (put at `slot.position`).
 */
export function balanceCredit(db: Db, accountId: string, amount: number, now: string, slot: LedgerSlot) {
  return {
    TableName: db.tableName,
    Key: accountKey(accountId),
    UpdateExpression: `SET credits = credits + :amount, updated_at = :now, ${slot.set}`,
    ConditionExpression: `attribute_exists(pk) AND ${slot.condition}`,
    ExpressionAttributeNames: slot.names,
    ExpressionAttributeValues: { ':amount': amount, ':now': now, ...slot.values },
  };
}

export class DynamoAccountStore implements AccountStore {
  constructor(private readonly db: Db) {}

  async get(accountId: string): Promise<Account | undefined> {
    const { Item } = await this.db.doc.send(
      new GetCommand({ TableName: this.db.tableName, Key: accountKey(accountId), ConsistentRead: true }),
    );
    return Item ? fromAccountItem(Item) : undefined;
  }

  /** Throws AccountExistsError when the account exists (a concurrent first use won: a consistent get sees it). */
  async create(account: Account, openingGrant?: LedgerEntry, entry?: AuditEntry): Promise<void> {
    const put = {
      TableName: this.db.tableName,
      Item: toAccountItem(account),
      ConditionExpression: 'attribute_not_exists(pk)',
    };
    try {
      await retryOnConflict<unknown>('account create', () =>
        openingGrant || entry
          ? transact(this.db, [
              // The opening grant is the ledger's first entry.
              ['account', { Put: openingGrant ? { ...put, Item: { ...put.Item, ledger_count: 1 } } : put }],
              openingGrant && ['grant', { Put: ledgerEntryPut(this.db, openingGrant, 1) }],
              entry && auditPart(this.db, entry),
            ])
          : this.db.doc.send(new PutCommand(put)),
      );
    } catch (error) {
      if (isConditionFailure(error) || (error instanceof TransactionRefused && error.failed('account'))) throw new AccountExistsError(account.accountId);
      throw error;
    }
  }

  async updateAccess(
    accountId: string,
    changes: { paidAccess?: boolean; subscriptionStatus?: SubscriptionStatus },
    now: string,
    audit: (before: Account, after: Account) => AuditEntry | undefined,
  ): Promise<Account> {
    return this.changeAudited('account access', accountId, (before) => {
      const after: Account = { ...before, ...(changes.paidAccess !== undefined && { paidAccess: changes.paidAccess }), ...(changes.subscriptionStatus !== undefined && { subscriptionStatus: changes.subscriptionStatus }), updatedAt: now };
      return {
        after,
        entry: audit(before, after),
        update: {
          UpdateExpression: 'SET paid_access = :paid, subscription_status = :sub, updated_at = :now',
          ConditionExpression: 'attribute_exists(pk) AND paid_access = :wasPaid AND subscription_status = :wasSub',
          ExpressionAttributeValues: { ':paid': after.paidAccess, ':sub': after.subscriptionStatus, ':now': now, ':wasPaid': before.paidAccess, ':wasSub': before.subscriptionStatus },
        },
      };
    });
  }

  /**
   * The setting and, while set, the account's entry in the RETENTION# list (keys.ts) the expiry
   * reads, with the audit entry in the same transaction.
   */
  async setOutputRetention(accountId: string, days: number | null, now: string, audit: (before: Account) => AuditEntry | undefined): Promise<Account> {
    return this.changeAudited('account retention', accountId, (before) => {
      const was = before.outputRetentionDays;
      const after: Account = { ...before, updatedAt: now };
      if (days === null) delete after.outputRetentionDays;
      else after.outputRetentionDays = days;
      const unchanged = `attribute_exists(pk) AND ${was === undefined ? 'attribute_not_exists(output_retention_days)' : 'output_retention_days = :was'}`;
      const wasValue = was === undefined ? {} : { ':was': was };
      return {
        after,
        entry: audit(before),
        update:
          days === null
            ? { UpdateExpression: 'SET updated_at = :now REMOVE output_retention_days, gsi2pk, gsi2sk', ConditionExpression: unchanged, ExpressionAttributeValues: { ':now': now, ...wasValue } }
            : {
                UpdateExpression: 'SET updated_at = :now, output_retention_days = :days, gsi2pk = :listPk, gsi2sk = :listSk',
                ConditionExpression: unchanged,
                ExpressionAttributeValues: { ':now': now, ':days': days, ...retentionEntryValues(accountId), ...wasValue },
              },
      };
    });
  }

  /**
   * An audited change of the account item: read it, then write the change and its audit entry
   * in one transaction, only if what the change depends on is still as read (the update's
   * condition), so the entry's `from` is what it replaced; read again when it moved. No entry:
   * nothing changes, nothing is written.
   */
  private changeAudited(
    what: string,
    accountId: string,
    change: (before: Account) => { after: Account; entry: AuditEntry | undefined; update: { UpdateExpression: string; ConditionExpression: string; ExpressionAttributeValues: Record<string, unknown> } },
  ): Promise<Account> {
    return withRetries(what, async () => {
      const before = await this.get(accountId);
      if (!before) throw new NotFoundError(`No account ${accountId}.`);
      const { after, entry, update } = change(before);
      if (!entry) return before;
      try {
        await transact(this.db, [['account', { Update: { TableName: this.db.tableName, Key: accountKey(accountId), ...update } }], auditPart(this.db, entry)]);
        return after;
      } catch (error) {
        if ((error instanceof TransactionRefused && error.failed('account')) || isConflict(error)) return AGAIN;
        throw error;
      }
    });
  }

  listWithRetention(): AsyncIterable<string>[] {
    return Array.from({ length: IN_FLIGHT_SHARDS }, (_, shard) => this.retentionShard(shard));
  }

  private async *retentionShard(shard: number): AsyncGenerator<string> {
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.db.doc.send(
        new QueryCommand({
          TableName: this.db.tableName,
          IndexName: TABLE_DEFINITION.gsi2.indexName,
          KeyConditionExpression: `${TABLE_DEFINITION.gsi2.partitionKey} = :pk`,
          ExpressionAttributeValues: { ':pk': retentionPartition(shard) },
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) yield String(item.gsi2sk);
      startKey = page.LastEvaluatedKey;
    } while (startKey);
  }

  async setTestSubscription(partitionId: string, active: boolean, now: string): Promise<boolean> {
    try {
      await this.db.doc.send(
        new UpdateCommand({
          TableName: this.db.tableName,
          Key: accountKey(partitionId),
          UpdateExpression: 'SET paid_access = :paid, subscription_status = :to, updated_at = :now',
          // Only a change writes: a repeat, or the loser of a race, leaves the item (and its updated_at) alone.
          ConditionExpression: `attribute_exists(pk) AND subscription_status ${active ? '<>' : '='} :active`,
          ExpressionAttributeValues: { ':paid': active, ':to': active ? 'active' : 'canceled', ':now': now, ':active': 'active' },
        }),
      );
      return true;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      if (!(await this.get(partitionId))) throw new NotFoundError(`No account ${partitionId}.`);
      return false;
    }
  }

  async grant(entry: LedgerEntry, audit: AuditEntry): Promise<void> {
    await appendWithRetries(this.db, entry.accountId, async (seen) => {
      if (seen === undefined) throw new NotFoundError(`No account ${entry.accountId}.`);
      const slot = slotAfter(seen);
      try {
        await transact(this.db, [
          ['account', { Update: balanceCredit(this.db, entry.accountId, entry.amount, entry.createdAt, slot) }],
          ['entry', { Put: ledgerEntryPut(this.db, entry, slot.position) }],
          auditPart(this.db, audit),
        ]);
        return undefined;
      } catch (error) {
        if (!(error instanceof TransactionRefused)) throw error;
        // The count moved (or the account went: then the next read says so).
        if (error.failed('account')) return ledgerMoved(error, 'account');
        if (error.conflict) return AGAIN;
        throw error;
      }
    });
  }
}
