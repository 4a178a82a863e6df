import { BatchGetCommand, type BatchGetCommandOutput, QueryCommand, TransactGetCommand, type TransactWriteItem } from '@aws-sdk/lib-dynamodb';
import { NotFoundError, ValidationError } from '#domain/shared/errors';
import { DynamoHolderStore } from './holder-repository';
import type { AuditEntry } from '#domain/shared/audit';
import type { Member, MemberActor, TeamStore } from '#domain/accounts/ports';
import { AlreadyMemberError, isRole, MAX_MEMBERS, MAX_MEMBERSHIPS, type Role } from '#domain/accounts/roles';
import { auditPart } from './audit/audit-put';
import type { Db } from './dynamo-client';
import { accountKey, accountPartition, holderKey, MEMBER_SK_PREFIX, memberKey, membershipKey, teamKey } from './keys';
import { AGAIN, withRetries } from './retry';
import { transact, TransactionRefused, type NamedPart } from './transaction';

const BATCH_GET_MAX = 100;

/**
 * An account's members (docs/data-model.md: member, membership, team counter). Every change is
 * one transaction: the TEAM counter (an owner leaves only while `owners > 1`), the member item
 * (conditioned on the role the judge read), the actor's member item (still an owner or admin of
 * the role read: a member removed a moment ago changes nothing), the holder's membership, and
 * the audit entry. A refused condition answers false for the use case to judge again.
 */
export class DynamoTeamStore implements TeamStore {
  constructor(private readonly db: Db) {}

  async list(accountId: string): Promise<Member[]> {
    const rows: Record<string, unknown>[] = [];
    let after: Record<string, unknown> | undefined;
    do {
      const page = await this.db.doc.send(
        new QueryCommand({
          TableName: this.db.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :member)',
          ExpressionAttributeValues: { ':pk': accountPartition(accountId), ':member': MEMBER_SK_PREFIX },
          ConsistentRead: true,
          ExclusiveStartKey: after,
        }),
      );
      rows.push(...(page.Items ?? []));
      after = page.LastEvaluatedKey;
    } while (after);
    const emails = await this.emails(rows.map((row) => row.holder_id as string));
    return rows
      .filter((row) => isRole(row.role))
      .map((row) => ({ holderId: row.holder_id as string, email: emails.get(row.holder_id as string) ?? '', role: row.role as Role, joinedAt: row.joined_at as string }))
      .sort((a, b) => (a.joinedAt === b.joinedAt ? (a.holderId < b.holderId ? -1 : 1) : a.joinedAt < b.joinedAt ? -1 : 1));
  }

  async add(accountId: string, holderId: string, role: Role, now: string, entry: AuditEntry): Promise<void> {
    const [member, holder, team, membership] = this.joinParts(accountId, holderId, role, now);
    const account: TransactWriteItem = { ConditionCheck: { TableName: this.db.tableName, Key: accountKey(accountId), ConditionExpression: 'attribute_exists(pk)' } };
    await withRetries('member add', async () => {
      try {
        // Part order: the refusal that answers first, should AWS report only one.
        await transact(this.db, [['account', account], member, holder, team, membership, auditPart(this.db, entry)]);
        return undefined;
      } catch (error) {
        if (!(error instanceof TransactionRefused)) throw error;
        if (error.failed('account')) throw new NotFoundError(`No account ${accountId}.`);
        if (error.failed('member')) throw new AlreadyMemberError(`${holderId} is already a member of ${accountId}.`, 'email');
        await this.joinRefused(error, holderId);
        if (error.conflict) return AGAIN;
        throw error;
      }
    });
  }

  /**
   * The parts of `holderId` joining `accountId` as `role` (an operator's add, an accepted
   * invitation): the member (cond: not one yet), the holder's membership count (cond: under
   * MAX_MEMBERSHIPS), the TEAM counter (cond: under MAX_MEMBERS) and the membership.
   */
  joinParts(accountId: string, holderId: string, role: Role, now: string): [readonly ['member', TransactWriteItem], readonly ['holder', TransactWriteItem], readonly ['team', TransactWriteItem], readonly ['membership', TransactWriteItem]] {
    const [member, membership, team] = new DynamoHolderStore(this.db).membershipParts(holderId, accountId, role, now) as [readonly ['member', TransactWriteItem], readonly ['membership', TransactWriteItem], readonly ['team', TransactWriteItem]];
    const capped: TransactWriteItem = {
      Update: {
        ...team[1].Update!,
        ConditionExpression: 'attribute_not_exists(members) OR members < :max',
        ExpressionAttributeValues: { ...team[1].Update!.ExpressionAttributeValues, ':max': MAX_MEMBERS },
      },
    };
    const holder: TransactWriteItem = {
      Update: {
        TableName: this.db.tableName,
        Key: holderKey(holderId),
        UpdateExpression: 'ADD accounts :one',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(accounts) OR accounts < :max)',
        ExpressionAttributeValues: { ':one': 1, ':max': MAX_MEMBERSHIPS },
      },
    };
    return [member, ['holder', holder], ['team', capped], membership];
  }

  /** Throws what a refused `holder` or `team` part of joinParts means (no holder; a cap reached). */
  async joinRefused(error: TransactionRefused, holderId: string): Promise<void> {
    if (error.failed('holder')) {
      if (!(await new DynamoHolderStore(this.db).get(holderId))) throw new NotFoundError(`No holder ${holderId}.`);
      throw new ValidationError(`A holder may belong to at most ${MAX_MEMBERSHIPS} accounts.`, 'accounts');
    }
    if (error.failed('team')) throw new ValidationError(`An account may have at most ${MAX_MEMBERS} members.`, 'members');
  }

  async state(accountId: string, holderIds: readonly string[]): Promise<{ owners: number; roles: Map<string, Role> }> {
    // TransactGetItems, not BatchGetItem: a batch may read the counter before a member change and
    // the roles after it (two owners demoting each other: the second judged as an admin with two
    // owners, a 403 instead of 409 last_owner); a transactional read sees all of a change or none.
    const keys = [teamKey(accountId), ...[...new Set(holderIds)].map((holderId) => memberKey(accountId, holderId))];
    const answer = await withRetries('team state', async () => {
      try {
        return await this.db.doc.send(new TransactGetCommand({ TransactItems: keys.map((Key) => ({ Get: { TableName: this.db.tableName, Key } })) }));
      } catch (error) {
        if (error instanceof Error && error.name === 'TransactionCanceledException') return AGAIN;
        throw error;
      }
    });
    const items = (answer.Responses ?? []).flatMap((response) => (response.Item ? [response.Item] : []));
    const team = items.find((item) => item.sk === teamKey(accountId).sk);
    const roles = new Map<string, Role>();
    for (const item of items) if (item.sk !== teamKey(accountId).sk && isRole(item.role)) roles.set(item.holder_id as string, item.role);
    return { owners: Number(team?.owners ?? 0), roles };
  }

  async changeRole(accountId: string, holderId: string, from: Role, to: Role, actor: MemberActor, entry: AuditEntry): Promise<boolean> {
    const table = this.db.tableName;
    const ownerDelta = (to === 'owner' ? 1 : 0) - (from === 'owner' ? 1 : 0);
    return this.attempt([
      ownerDelta !== 0 && ['team', { Update: this.teamUpdate(accountId, { owners: ownerDelta }) }],
      [
        'member',
        {
          Update: {
            TableName: table,
            Key: memberKey(accountId, holderId),
            UpdateExpression: 'SET #role = :to',
            ConditionExpression: '#role = :from',
            ExpressionAttributeNames: { '#role': 'role' },
            ExpressionAttributeValues: { ':to': to, ':from': from },
          },
        },
      ],
      this.actorCheck(accountId, holderId, actor),
      [
        'membership',
        {
          Update: {
            TableName: table,
            Key: membershipKey(holderId, accountId),
            UpdateExpression: 'SET #role = :to',
            ExpressionAttributeNames: { '#role': 'role' },
            ExpressionAttributeValues: { ':to': to },
          },
        },
      ],
      auditPart(this.db, entry),
    ]);
  }

  async remove(accountId: string, holderId: string, from: Role, actor: MemberActor, entry: AuditEntry): Promise<boolean> {
    const table = this.db.tableName;
    return this.attempt([
      ['team', { Update: this.teamUpdate(accountId, { members: -1, owners: from === 'owner' ? -1 : 0 }) }],
      [
        'member',
        {
          Delete: {
            TableName: table,
            Key: memberKey(accountId, holderId),
            ConditionExpression: '#role = :from',
            ExpressionAttributeNames: { '#role': 'role' },
            ExpressionAttributeValues: { ':from': from },
          },
        },
      ],
      this.actorCheck(accountId, holderId, actor),
      ['membership', { Delete: { TableName: table, Key: membershipKey(holderId, accountId) } }],
      ['holder', { Update: { TableName: table, Key: holderKey(holderId), UpdateExpression: 'ADD accounts :minus', ExpressionAttributeValues: { ':minus': -1 } } }],
      auditPart(this.db, entry),
    ]);
  }

  /** ADD to the counter; a decrease of owners only while another owner remains. */
  private teamUpdate(accountId: string, delta: { members?: number; owners: number }): NonNullable<TransactWriteItem['Update']> {
    const adds = [delta.members !== undefined && 'members :members', delta.owners !== 0 && 'owners :owners'].filter(Boolean);
    return {
      TableName: this.db.tableName,
      Key: teamKey(accountId),
      UpdateExpression: `ADD ${adds.join(', ')}`,
      ...(delta.owners < 0 && { ConditionExpression: 'owners > :one' }),
      ExpressionAttributeValues: {
        ...(delta.members !== undefined && { ':members': delta.members }),
        ...(delta.owners !== 0 && { ':owners': delta.owners }),
        ...(delta.owners < 0 && { ':one': 1 }),
      },
    };
  }

  /** The actor is still a member with the role read; none for a change of one's own (the member part checks that item). */
  private actorCheck(accountId: string, holderId: string, actor: MemberActor): NamedPart<'actor'> {
    return actor?.holderId === holderId ? undefined : actorStillMember(this.db, accountId, actor);
  }

  private async attempt(parts: NamedPart<string>[]): Promise<boolean> {
    return withRetries('member change', async () => {
      try {
        await transact(this.db, parts);
        return true;
      } catch (error) {
        if (!(error instanceof TransactionRefused)) throw error;
        if (error.anyFailed) return false;
        if (error.conflict) return AGAIN;
        throw error;
      }
    });
  }

  private async emails(holderIds: readonly string[]): Promise<Map<string, string>> {
    const items = await this.batchGet(holderIds.map((holderId) => holderKey(holderId)));
    return new Map(items.map((item) => [item.holder_id as string, item.email as string]));
  }

  private async batchGet(keys: readonly { pk: string; sk: string }[]): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    for (let start = 0; start < keys.length; start += BATCH_GET_MAX) {
      let pending: Record<string, unknown>[] | undefined = keys.slice(start, start + BATCH_GET_MAX).map((key) => ({ ...key }));
      while (pending && pending.length > 0) {
        const answer: BatchGetCommandOutput = await this.db.doc.send(new BatchGetCommand({ RequestItems: { [this.db.tableName]: { Keys: pending, ConsistentRead: true } } }));
        items.push(...(answer.Responses?.[this.db.tableName] ?? []));
        pending = answer.UnprocessedKeys?.[this.db.tableName]?.Keys;
      }
    }
    return items;
  }
}

/**
 * A team write's `actor` part: whoever makes the change is still a member with the role the use
 * case read (an admin demoted a moment ago changes nothing). None for the operator.
 */
export function actorStillMember(db: Db, accountId: string, actor: MemberActor): NamedPart<'actor'> {
  if (!actor) return undefined;
  return [
    'actor',
    {
      ConditionCheck: {
        TableName: db.tableName,
        Key: memberKey(accountId, actor.holderId),
        ConditionExpression: '#role = :actor',
        ExpressionAttributeNames: { '#role': 'role' },
        ExpressionAttributeValues: { ':actor': actor.role },
      },
    },
  ];
}
