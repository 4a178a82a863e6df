import { GetCommand, type TransactWriteItem } from '@aws-sdk/lib-dynamodb';
import { NotFoundError } from '#domain/shared/errors';
import { HolderExistsError, type Holder } from '#domain/accounts/holder';
import type { Account } from '#domain/accounts/account';
import type { LedgerEntry } from '#domain/accounts/ledger';
import type { HolderStore } from '#domain/accounts/ports';
import { toAccountItem } from './account-repository';
import type { Db } from './dynamo-client';
import { accountKey, holderKey } from './keys';
import { ledgerEntryPut } from './ledger-repository';
import { AGAIN, withRetries } from './retry';
import { transact, TransactionRefused, type NamedPart } from './transaction';

/**
 * Holders and their accounts. The holder item's conditional put is what makes a first sign-in
 * race-safe: it is written in one transaction with the new account, so of two first requests at
 * once exactly one creates an account and the other is told the holder already has one.
 */
export class DynamoHolderStore implements HolderStore {
  constructor(private readonly db: Db) {}

  async get(holderId: string): Promise<Holder | undefined> {
    const { Item } = await this.db.doc.send(new GetCommand({ TableName: this.db.tableName, Key: holderKey(holderId), ConsistentRead: true }));
    return Item ? { holderId: Item.holder_id, accountId: Item.account_id, email: Item.email, createdAt: Item.created_at } : undefined;
  }

  async createWithAccount(holder: Holder, account: Account, openingGrant?: LedgerEntry): Promise<void> {
    const accountItem = { ...toAccountItem(account), ...(openingGrant && { ledger_count: 1 }) };
    await this.write(holder, [
      ['account', { Put: { TableName: this.db.tableName, Item: accountItem, ConditionExpression: 'attribute_not_exists(pk)' } }],
      openingGrant && ['grant', { Put: ledgerEntryPut(this.db, openingGrant, 1) }],
    ]);
  }

  async attach(holder: Holder): Promise<void> {
    const accountExists = { TableName: this.db.tableName, Key: accountKey(holder.accountId), ConditionExpression: 'attribute_exists(pk)' };
    await this.write(holder, [['account', { ConditionCheck: accountExists }]], () => new NotFoundError(`No account ${holder.accountId}.`));
  }

  /** The holder's put with `others`, in one transaction. */
  private async write(holder: Holder, others: NamedPart<'account' | 'grant'>[], accountFailed?: () => Error): Promise<void> {
    const put: TransactWriteItem = {
      Put: {
        TableName: this.db.tableName,
        Item: { ...holderKey(holder.holderId), type: 'holder', holder_id: holder.holderId, account_id: holder.accountId, email: holder.email, created_at: holder.createdAt },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
    await withRetries('holder create', async () => {
      try {
        await transact(this.db, [['holder', put], ...others]);
        return undefined;
      } catch (error) {
        if (!(error instanceof TransactionRefused)) throw error;
        if (error.failed('holder')) throw new HolderExistsError(holder.holderId);
        if (accountFailed && error.failed('account')) throw accountFailed();
        if (!error.conflict) throw error;
        // Another first sign-in held the holder item: it may have committed.
        if (await this.get(holder.holderId)) throw new HolderExistsError(holder.holderId);
        return AGAIN;
      }
    });
  }
}
