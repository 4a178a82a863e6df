import { auditEntry, type AuditStamp } from '../shared/audit';
import { ForbiddenError, NotFoundError, ServiceBusyError } from '../shared/errors';
import type { Principal } from './principal';
import type { Member, TeamStore } from './ports';
import { judgeMemberChange, type Role } from './roles';

/**
 * Adds a recorded holder to an account with a role (an operator's `member add`; an accepted
 * invitation), with its `member.joined` entry in the same write.
 */
export async function addMember(
  team: TeamStore,
  member: { accountId: string; holderId: string; email: string; role: Role },
  stamp: AuditStamp,
  now: Date,
): Promise<void> {
  const entry = auditEntry(stamp, member.accountId, 'member.joined', { type: 'member', id: member.holderId }, { email: member.email, role: member.role }, now);
  await team.add(member.accountId, member.holderId, member.role, now.toISOString(), entry);
}

/** Who asks for a member change: a session's holder with their role in the account, or the operator. */
export type ChangeActor = { holderId: string; role: Role } | null;

/** The member list of `GET /account/members`, earliest joined first. */
export async function listMembers(team: TeamStore, accountId: string): Promise<Member[]> {
  return team.list(accountId);
}

/** Reads are consistent and changes conditioned: a change refused because the read moved is judged again, this many times. */
const MAX_ROUNDS = 10;

/**
 * `PATCH /account/members/{holder_id}`: changes a member's role, with its `member.role_changed`
 * entry. Judged before each write (roles.ts, judgeMemberChange), and the write is conditioned on
 * what was read, so two owners demoting each other at once leave one owner: one change commits,
 * the other is judged again and refused 409 `last_owner`. A change to the same role writes nothing.
 */
export async function changeMemberRole(
  team: TeamStore,
  change: { accountId: string; holderId: string; role: Role; actor: ChangeActor },
  stamp: AuditStamp,
  now: Date,
): Promise<Member> {
  const { accountId, holderId, role, actor } = change;
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const { target, actorRole, owners } = await readState(team, accountId, holderId, actor);
    const refusal = judgeMemberChange({ owners, target, ...(actor && { actor: actorRole }) }, { accountId, holderId, newRole: role });
    if (refusal) throw refusal;
    if (target === role) return memberOf(team, accountId, holderId);
    const entry = auditEntry(stamp, accountId, 'member.role_changed', { type: 'member', id: holderId }, { role: { from: target!, to: role } }, now);
    if (await team.changeRole(accountId, holderId, target!, role, actor && { holderId: actor.holderId, role: actorRole! }, entry)) return memberOf(team, accountId, holderId);
  }
  throw new ServiceBusyError(1, 'The team is being changed by others: try again.');
}

/** `DELETE /account/members/{holder_id}` (one's own too): as a role change, with `member.removed`. */
export async function removeMember(team: TeamStore, change: { accountId: string; holderId: string; actor: ChangeActor }, stamp: AuditStamp, now: Date): Promise<void> {
  const { accountId, holderId, actor } = change;
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const { target, actorRole, owners } = await readState(team, accountId, holderId, actor);
    const refusal = judgeMemberChange({ owners, target, ...(actor && { actor: actorRole }) }, { accountId, holderId, newRole: undefined });
    if (refusal) throw refusal;
    const entry = auditEntry(stamp, accountId, 'member.removed', { type: 'member', id: holderId }, { role: target! }, now);
    if (await team.remove(accountId, holderId, target!, actor && { holderId: actor.holderId, role: actorRole! }, entry)) return;
  }
  throw new ServiceBusyError(1, 'The team is being changed by others: try again.');
}

async function readState(team: TeamStore, accountId: string, holderId: string, actor: ChangeActor) {
  const { owners, roles } = await team.state(accountId, actor ? [holderId, actor.holderId] : [holderId]);
  // The actor's role as it stands now (null: no member any more), not as their cached session says.
  return { owners, target: roles.get(holderId), actorRole: actor ? (roles.get(actor.holderId) ?? null) : undefined };
}

async function memberOf(team: TeamStore, accountId: string, holderId: string): Promise<Member> {
  const member = (await team.list(accountId)).find((each) => each.holderId === holderId);
  if (!member) throw new NotFoundError(`${holderId} is not a member of ${accountId}.`);
  return member;
}

/** The actor of a session's member change: the holder with the role their request acts with (checked afresh by the change). */
export function sessionActor(principal: Principal): ChangeActor {
  if (principal.kind !== 'session' || principal.role === null) throw new ForbiddenError('Members are managed by an owner or admin of the account, signed in.');
  return { holderId: principal.holderId, role: principal.role };
}
