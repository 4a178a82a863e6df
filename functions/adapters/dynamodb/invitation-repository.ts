import { QueryCommand, type TransactWriteItem } from '@aws-sdk/lib-dynamodb';
import type { AuditEntry } from '#domain/shared/audit';
import type { Invitation, InvitationStore, MemberActor } from '#domain/accounts/ports';
import { isRole } from '#domain/accounts/roles';
import { auditPart } from './audit/audit-put';
import type { Db } from './dynamo-client';
import { accountPartition, INVITATION_SK_PREFIX, invitationKey, inviteeEntry, inviteePartition, inviteQuotaKey } from './keys';
import { AGAIN, withRetries } from './retry';
import { TABLE_DEFINITION } from './table-definition';
import { actorStillMember, DynamoTeamStore } from './team-repository';
import { transact, TransactionRefused, type NamedPart } from './transaction';

const DAY_S = 24 * 60 * 60;

interface InvitationItem {
  pk: string;
  sk: string;
  type: 'invitation';
  invitation_id: string;
  account_id: string;
  email: string;
  role: string;
  invited_by: string;
  created_at: string;
  /** ISO: the expiry reads check (the TTL below lags up to 48 h). */
  invite_expires_at: string;
  /** TTL: a day after the expiry. */
  expires_at: number;
  gsi1pk: string;
  gsi1sk: string;
}

function toItem(invitation: Invitation): InvitationItem {
  return {
    ...invitationKey(invitation.accountId, invitation.email),
    type: 'invitation',
    invitation_id: invitation.invitationId,
    account_id: invitation.accountId,
    email: invitation.email,
    role: invitation.role,
    invited_by: invitation.invitedBy,
    created_at: invitation.createdAt,
    invite_expires_at: invitation.expiresAt,
    expires_at: Math.floor(Date.parse(invitation.expiresAt) / 1000) + DAY_S,
    ...inviteeEntry(invitation.email, invitation.createdAt, invitation.accountId),
  };
}

function fromItem(item: Record<string, unknown>): Invitation | undefined {
  const row = item as unknown as InvitationItem;
  if (!isRole(row.role)) return undefined;
  return { invitationId: row.invitation_id, accountId: row.account_id, email: row.email, role: row.role, invitedBy: row.invited_by, createdAt: row.created_at, expiresAt: row.invite_expires_at };
}

const newestFirst = (a: Invitation, b: Invitation) => (a.createdAt === b.createdAt ? (a.invitationId < b.invitationId ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1);

/**
 * Invitations (docs/data-model.md: invitation, invite quota). Each write is one transaction with
 * its audit entry: invite [quota, invitation, actor, audit]; accept [invitation (delete: still
 * this one and unexpired), member, holder, team, membership, audit]; revoke [invitation, actor,
 * audit]. Part order is the refusal that answers first, should AWS report only one.
 */
export class DynamoInvitationStore implements InvitationStore {
  constructor(private readonly db: Db) {}

  async invite(invitation: Invitation, actor: MemberActor, entry: AuditEntry, quota: { day: string; max: number }): Promise<'invited' | 'quota' | 'moved'> {
    const table = this.db.tableName;
    const quotaPart: TransactWriteItem = {
      Update: {
        TableName: table,
        Key: inviteQuotaKey(invitation.accountId, quota.day),
        // Kept two days: the day's count, then gone.
        UpdateExpression: 'SET #type = :type, expires_at = if_not_exists(expires_at, :ttl) ADD #count :one',
        ConditionExpression: 'attribute_not_exists(#count) OR #count < :max',
        ExpressionAttributeNames: { '#type': 'type', '#count': 'count' },
        ExpressionAttributeValues: { ':type': 'invite_quota', ':ttl': Date.parse(`${quota.day}T00:00:00.000Z`) / 1000 + 2 * DAY_S, ':one': 1, ':max': quota.max },
      },
    };
    return this.attempt('invite', [['quota', quotaPart], ['invitation', { Put: { TableName: table, Item: toItem(invitation) } }], actorStillMember(this.db, invitation.accountId, actor), auditPart(this.db, entry)], (error) => {
      if (error.failed('quota')) return 'quota';
      if (error.failed('actor')) return 'moved';
      return undefined;
    }, 'invited');
  }

  async forAccount(accountId: string, now: string): Promise<Invitation[]> {
    const items = await this.query({
      TableName: this.db.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': accountPartition(accountId), ':prefix': INVITATION_SK_PREFIX },
      ConsistentRead: true,
    });
    return open(items, now);
  }

  async forEmail(email: string, now: string): Promise<Invitation[]> {
    const { gsi1 } = TABLE_DEFINITION;
    const items = await this.query({
      TableName: this.db.tableName,
      IndexName: gsi1.indexName,
      KeyConditionExpression: `${gsi1.partitionKey} = :pk`,
      ExpressionAttributeValues: { ':pk': inviteePartition(email) },
      ScanIndexForward: false,
    });
    return open(items, now);
  }

  async accept(invitation: Invitation, holderId: string, now: string, entry: AuditEntry): Promise<'joined' | 'gone' | 'member'> {
    const team = new DynamoTeamStore(this.db);
    const [member, holder, counter, membership] = team.joinParts(invitation.accountId, holderId, invitation.role, now);
    const used: TransactWriteItem = {
      Delete: {
        TableName: this.db.tableName,
        Key: invitationKey(invitation.accountId, invitation.email),
        ConditionExpression: 'invitation_id = :id AND invite_expires_at > :now',
        ExpressionAttributeValues: { ':id': invitation.invitationId, ':now': now },
      },
    };
    return withRetries('invitation accept', async () => {
      try {
        await transact(this.db, [['invitation', used], member, membership, counter, holder, auditPart(this.db, entry)]);
        return 'joined' as const;
      } catch (error) {
        if (!(error instanceof TransactionRefused)) throw error;
        if (error.failed('invitation')) return 'gone' as const;
        if (error.failed('member')) return 'member' as const;
        await team.joinRefused(error, holderId);
        if (error.conflict) return AGAIN;
        throw error;
      }
    });
  }

  async revoke(invitation: Invitation, actor: MemberActor, entry: AuditEntry): Promise<'revoked' | 'gone' | 'moved'> {
    const withdrawn: TransactWriteItem = {
      Delete: {
        TableName: this.db.tableName,
        Key: invitationKey(invitation.accountId, invitation.email),
        ConditionExpression: 'invitation_id = :id',
        ExpressionAttributeValues: { ':id': invitation.invitationId },
      },
    };
    return this.attempt('invitation revoke', [['invitation', withdrawn], actorStillMember(this.db, invitation.accountId, actor), auditPart(this.db, entry)], (error) => {
      if (error.failed('invitation')) return 'gone';
      if (error.failed('actor')) return 'moved';
      return undefined;
    }, 'revoked');
  }

  /** One transaction, tried again on a conflict; a refused part answers what `refused` reads from it. */
  private async attempt<T extends string, D extends string>(what: string, parts: NamedPart<string>[], refused: (error: TransactionRefused) => T | undefined, done: D): Promise<T | D> {
    return withRetries(what, async () => {
      try {
        await transact(this.db, parts);
        return done;
      } catch (error) {
        if (!(error instanceof TransactionRefused)) throw error;
        const answer = refused(error);
        if (answer !== undefined) return answer;
        if (error.conflict) return AGAIN;
        throw error;
      }
    });
  }

  private async query(input: ConstructorParameters<typeof QueryCommand>[0]): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let after: Record<string, unknown> | undefined;
    do {
      const page = await this.db.doc.send(new QueryCommand({ ...input, ExclusiveStartKey: after }));
      items.push(...(page.Items ?? []));
      after = page.LastEvaluatedKey;
    } while (after);
    return items;
  }
}

/** The invitations still open at `now` (the TTL deletes expired ones only some time after), newest first. */
function open(items: readonly Record<string, unknown>[], now: string): Invitation[] {
  return items
    .flatMap((item) => fromItem(item) ?? [])
    .filter((invitation) => invitation.expiresAt > now)
    .sort(newestFirst);
}
