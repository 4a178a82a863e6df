import { GetCommand, QueryCommand, type TransactWriteItem } from '@aws-sdk/lib-dynamodb';
import { NotFoundError } from '#domain/shared/errors';
import { HolderExistsError, type Holder } from '#domain/accounts/holder';
import type { Account } from '#domain/accounts/account';
import type { LedgerEntry } from '#domain/accounts/ledger';
import type { HolderStore } from '#domain/accounts/ports';
import { isRole, type Membership, type Role } from '#domain/accounts/roles';
import { toAccountItem } from './account-repository';
import type { Db } from './dynamo-client';
import { accountKey, holderKey, holderPartition, memberKey, MEMBERSHIP_SK_PREFIX, membershipKey, teamKey } from './keys';
import { ledgerEntryPut } from './ledger-repository';
import { AGAIN, withRetries } from './retry';
import { transact, TransactionRefused, type NamedPart } from './transaction';

/**
 * Holders and their memberships (docs/data-model.md: holder, member, membership, team). A
 * membership is two items written together, `ACCOUNT#a/MEMBER#h` and `HOLDER#h/MEMBERSHIP#a`,
 * so both directions read consistently with no index lag; `ACCOUNT#a/TEAM` counts members and
 * owners. The holder item's conditional put is what makes a first sign-in race-safe: of two
 * first requests at once exactly one creates an account and the other is told the holder exists.
 */
export class DynamoHolderStore implements HolderStore {
  constructor(private readonly db: Db) {}

  async get(holderId: string): Promise<Holder | undefined> {
    const { Item } = await this.db.doc.send(new GetCommand({ TableName: this.db.tableName, Key: holderKey(holderId), ConsistentRead: true }));
    return Item ? toHolder(Item) : undefined;
  }

  async withMemberships(holderId: string): Promise<{ holder: Holder; memberships: Membership[] } | undefined> {
    // The holder item (`HOLDER`) and its memberships (`MEMBERSHIP#…`, at most MAX_MEMBERSHIPS): one page.
    const items: Record<string, unknown>[] = [];
    let after: Record<string, unknown> | undefined;
    do {
      const page = await this.db.doc.send(
        new QueryCommand({
          TableName: this.db.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': holderPartition(holderId) },
          ConsistentRead: true,
          ExclusiveStartKey: after,
        }),
      );
      items.push(...(page.Items ?? []));
      after = page.LastEvaluatedKey;
    } while (after);
    const holderItem = items.find((item) => item.sk === holderKey(holderId).sk);
    if (!holderItem) return undefined;
    const memberships = items
      .filter((item) => typeof item.sk === 'string' && item.sk.startsWith(MEMBERSHIP_SK_PREFIX) && isRole(item.role))
      .map((item) => ({ accountId: item.account_id as string, role: item.role as Role, joinedAt: item.joined_at as string }));
    return { holder: toHolder(holderItem), memberships };
  }

  async createWithAccount(holder: Holder, account: Account, openingGrant?: LedgerEntry): Promise<void> {
    const accountItem = { ...toAccountItem(account), ...(openingGrant && { ledger_count: 1 }) };
    await this.write(holder, 'owner', [
      ['account', { Put: { TableName: this.db.tableName, Item: accountItem, ConditionExpression: 'attribute_not_exists(pk)' } }],
      openingGrant && ['grant', { Put: ledgerEntryPut(this.db, openingGrant, 1) }],
    ]);
  }

  async attach(holder: Holder, role: Role): Promise<void> {
    const accountExists = { TableName: this.db.tableName, Key: accountKey(holder.accountId), ConditionExpression: 'attribute_exists(pk)' };
    await this.write(holder, role, [['account', { ConditionCheck: accountExists }]], () => new NotFoundError(`No account ${holder.accountId}.`));
  }

  async adoptLegacy(holder: Holder, now: string): Promise<void> {
    const mark: TransactWriteItem = {
      Update: {
        TableName: this.db.tableName,
        Key: holderKey(holder.holderId),
        UpdateExpression: 'SET teams_at = :now, accounts = if_not_exists(accounts, :zero) + :one',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(teams_at)',
        ExpressionAttributeValues: { ':now': now, ':zero': 0, ':one': 1 },
      },
    };
    await withRetries('holder adopt', async () => {
      try {
        await transact(this.db, [['holder', mark], ...this.membershipParts(holder.holderId, holder.accountId, 'owner', now)]);
        return undefined;
      } catch (error) {
        if (!(error instanceof TransactionRefused)) throw error;
        // Another sign-in adopted them first: nothing left to do.
        if (error.failed('holder')) return undefined;
        if (error.conflict) return AGAIN;
        throw error;
      }
    });
  }

  /** The member, membership and team parts of `holderId` joining `accountId` as `role` (the team store's add uses them too). */
  membershipParts(holderId: string, accountId: string, role: Role, joinedAt: string): NamedPart<'member' | 'membership' | 'team'>[] {
    const table = this.db.tableName;
    return [
      [
        'member',
        {
          Put: {
            TableName: table,
            Item: { ...memberKey(accountId, holderId), type: 'member', account_id: accountId, holder_id: holderId, role, joined_at: joinedAt },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ],
      ['membership', { Put: { TableName: table, Item: { ...membershipKey(holderId, accountId), type: 'membership', holder_id: holderId, account_id: accountId, role, joined_at: joinedAt } } }],
      [
        'team',
        {
          Update: {
            TableName: table,
            Key: teamKey(accountId),
            UpdateExpression: 'SET #type = :type ADD members :one, owners :owner',
            ExpressionAttributeNames: { '#type': 'type' },
            ExpressionAttributeValues: { ':type': 'team', ':one': 1, ':owner': role === 'owner' ? 1 : 0 },
          },
        },
      ],
    ];
  }

  /** The holder's put with their membership of their home account as `role`, and `others`, in one transaction. */
  private async write(holder: Holder, role: Role, others: NamedPart<'account' | 'grant'>[], accountFailed?: () => Error): Promise<void> {
    const put: TransactWriteItem = {
      Put: {
        TableName: this.db.tableName,
        Item: {
          ...holderKey(holder.holderId),
          type: 'holder',
          holder_id: holder.holderId,
          account_id: holder.accountId,
          email: holder.email,
          created_at: holder.createdAt,
          teams_at: holder.createdAt,
          accounts: 1,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
    await withRetries('holder create', async () => {
      try {
        await transact(this.db, [['holder', put], ...others, ...this.membershipParts(holder.holderId, holder.accountId, role, holder.createdAt)]);
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

function toHolder(item: Record<string, unknown>): Holder {
  return {
    holderId: item.holder_id as string,
    accountId: item.account_id as string,
    email: item.email as string,
    createdAt: item.created_at as string,
    ...(typeof item.teams_at === 'string' && { teamsAt: item.teams_at }),
  };
}
