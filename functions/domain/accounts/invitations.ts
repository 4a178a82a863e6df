import { auditEntry, type AuditStamp } from '../shared/audit';
import { ForbiddenError, NotFoundError, ServiceBusyError, ValidationError } from '../shared/errors';
import { newInvitationId } from '../shared/ids';
import type { Telemetry } from '../shared/telemetry';
import type { IdentityHolder } from './holder';
import type { ChangeActor } from './members';
import type { Invitation, InvitationStore, Mailer, TeamStore } from './ports';
import { mayManage, type Role } from './roles';

/**
 * Invitations (CONTRACT.md "Teams", design-36 §4): an owner or admin invites an email address
 * with a role; the holder whose *verified* email it is accepts and becomes a member. Nothing
 * secret is mailed: the mail only points at the console, and acceptance is bound to the address
 * the identity provider vouches for, asked afresh (never the authorizer's cached context).
 */
export type { Invitation };

/** An invitation is open this long. */
export const INVITATION_DAYS = 7;
/** Invitations an account may send per UTC day (bounds the mail sent on its behalf; exact under concurrency). */
export const MAX_INVITATIONS_PER_DAY = 100;
/** RFC 5321's longest forward path, less the angle brackets. */
export const MAX_EMAIL_LENGTH = 254;

const DAY_MS = 24 * 60 * 60 * 1000;
/** Reads are consistent and writes conditioned on them: a write refused because the actor's role moved is judged again, this many times. */
const MAX_ROUNDS = 10;

export interface InvitationDeps {
  team: TeamStore;
  invitations: InvitationStore;
  mailer: Mailer;
  telemetry: Pick<Telemetry, 'error' | 'count'>;
  /** Time, from the caller (the domain never reads the system clock). */
  clock: () => Date;
}

const nowOf = (deps: Pick<InvitationDeps, 'clock'>) => deps.clock();

/** The address as invitations keep it: trimmed and lowercased, at most 254 characters, one `@` with a dotted domain. */
export function invitationEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (email.length > MAX_EMAIL_LENGTH) throw new ValidationError(`email: at most ${MAX_EMAIL_LENGTH} characters.`, 'email');
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) throw new ValidationError('email: must be an email address (name@example.com).', 'email');
  return email;
}

/**
 * Whether the actor (their role as read now; null: no member any more; undefined: the operator)
 * may invite to `role`, or revoke an invitation to it: owners and admins, admins not for owners.
 */
function judgeInvitation(accountId: string, actor: Role | null | undefined, role: Role, doing: 'invite' | 'revoke'): Error | undefined {
  if (actor === undefined) return undefined;
  if (actor === null) return new ForbiddenError(`You are no longer a member of ${accountId}.`);
  if (mayManage(actor, role, role)) return undefined;
  if (actor === 'admin') return new ForbiddenError(doing === 'invite' ? 'Only an owner may make an owner.' : "Only an owner may revoke an owner's invitation.");
  return new ForbiddenError(`Your role in ${accountId} (${actor}) may not manage members; a role that may: owner, admin.`);
}

async function actorRole(team: TeamStore, accountId: string, actor: ChangeActor): Promise<Role | null | undefined> {
  if (!actor) return undefined;
  return (await team.state(accountId, [actor.holderId])).roles.get(actor.holderId) ?? null;
}

/**
 * `POST /account/members`: invites `email` to the account as `role` for 7 days, replacing an open
 * invitation to the same address (a new id, a new expiry: the way to resend). Then mails it; a
 * mail that fails leaves the invitation valid, logged and counted, and the answer is still the
 * invitation. A member's address is refused (400 naming `email`), and so is the 101st invitation
 * of the day.
 */
export async function invite(
  deps: InvitationDeps,
  request: { accountId: string; actor: ChangeActor; email: string; role: Role },
  stamp: AuditStamp,
): Promise<Invitation> {
  const { accountId, actor, role } = request;
  const email = invitationEmail(request.email);
  const now = nowOf(deps);
  if ((await deps.team.list(accountId)).some((member) => member.email.toLowerCase() === email)) {
    throw new ValidationError(`email: ${email} is already a member of ${accountId}.`, 'email');
  }
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const current = await actorRole(deps.team, accountId, actor);
    const refusal = judgeInvitation(accountId, current, role, 'invite');
    if (refusal) throw refusal;
    const invitation: Invitation = {
      invitationId: newInvitationId(),
      accountId,
      email,
      role,
      invitedBy: actor?.holderId ?? 'operator',
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + INVITATION_DAYS * DAY_MS).toISOString(),
    };
    const entry = auditEntry(stamp, accountId, 'member.invited', { type: 'invitation', id: invitation.invitationId }, { email, role }, now);
    const outcome = await deps.invitations.invite(invitation, actor && { holderId: actor.holderId, role: current! }, entry, { day: invitation.createdAt.slice(0, 10), max: MAX_INVITATIONS_PER_DAY });
    if (outcome === 'quota') throw new ValidationError(`email: ${accountId} has sent ${MAX_INVITATIONS_PER_DAY} invitations today (UTC): invite again tomorrow.`, 'email');
    if (outcome === 'invited') {
      await mail(deps, invitation, stamp.actor.email);
      return invitation;
    }
  }
  throw new ServiceBusyError(1, 'The team is being changed by others: try again.');
}

async function mail(deps: InvitationDeps, invitation: Invitation, inviterEmail: string | null): Promise<void> {
  try {
    await deps.mailer.sendInvitation({ to: invitation.email, accountId: invitation.accountId, role: invitation.role, inviterEmail, expiresAt: invitation.expiresAt });
  } catch (error) {
    // Committed already: the invitation stands (GET /invitations lists it), and inviting again resends.
    deps.telemetry.error('invitation mail not sent', error, { account_id: invitation.accountId, invitation_id: invitation.invitationId });
    deps.telemetry.count('InvitationMailFailed');
  }
}

/** `GET /account/members`' open invitations, newest first. */
export async function listAccountInvitations(deps: Pick<InvitationDeps, 'invitations' | 'clock'>, accountId: string): Promise<Invitation[]> {
  return deps.invitations.forAccount(accountId, nowOf(deps).toISOString());
}

/** The holder as the identity provider sees them now, with a verified address (403 otherwise). */
function verified(identity: IdentityHolder): string {
  if (!identity.emailVerified) throw new ForbiddenError('Verify your email address first.');
  return identity.email.trim().toLowerCase();
}

/** `GET /invitations`: the open invitations to the holder's verified address, newest first. */
export async function listMine(deps: Pick<InvitationDeps, 'invitations' | 'clock'>, identity: IdentityHolder): Promise<Invitation[]> {
  return deps.invitations.forEmail(verified(identity), nowOf(deps).toISOString());
}

/**
 * `POST /invitations/{id}/accept`: the holder joins the account with the invitation's role, and
 * the invitation is used up, in one write (with `member.joined`). An invitation to another
 * address, expired, revoked, replaced or unknown is the same 404, so an id reveals nothing.
 */
export async function accept(
  deps: Pick<InvitationDeps, 'invitations' | 'team' | 'clock'>,
  identity: IdentityHolder,
  invitationId: string,
  stamp: AuditStamp,
): Promise<{ accountId: string; role: Role }> {
  const email = verified(identity);
  const now = nowOf(deps);
  const gone = () => new NotFoundError(`No open invitation ${invitationId} for you.`);
  const invitation = (await deps.invitations.forEmail(email, now.toISOString())).find((each) => each.invitationId === invitationId);
  if (!invitation) throw gone();
  const alreadyMember = () => new ValidationError(`invitation_id: you are already a member of ${invitation.accountId}.`, 'invitation_id');
  if ((await deps.team.state(invitation.accountId, [identity.holderId])).roles.has(identity.holderId)) throw alreadyMember();
  const entry = auditEntry(stamp, invitation.accountId, 'member.joined', { type: 'member', id: identity.holderId }, { email, role: invitation.role, invitation_id: invitationId }, now);
  const outcome = await deps.invitations.accept(invitation, identity.holderId, now.toISOString(), entry);
  if (outcome === 'gone') throw gone();
  if (outcome === 'member') throw alreadyMember();
  return { accountId: invitation.accountId, role: invitation.role };
}

/**
 * `DELETE /account/members/invitations/{id}`: withdraws an open invitation (an admin not an
 * owner's), with `invitation.revoked`. Unknown, expired or already used: 404.
 */
export async function revoke(
  deps: Pick<InvitationDeps, 'invitations' | 'team' | 'clock'>,
  request: { accountId: string; actor: ChangeActor; invitationId: string },
  stamp: AuditStamp,
): Promise<void> {
  const { accountId, actor, invitationId } = request;
  const now = nowOf(deps);
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const invitation = (await deps.invitations.forAccount(accountId, now.toISOString())).find((each) => each.invitationId === invitationId);
    if (!invitation) throw new NotFoundError(`No open invitation ${invitationId} in ${accountId}.`);
    const current = await actorRole(deps.team, accountId, actor);
    const refusal = judgeInvitation(accountId, current, invitation.role, 'revoke');
    if (refusal) throw refusal;
    const entry = auditEntry(stamp, accountId, 'invitation.revoked', { type: 'invitation', id: invitationId }, { email: invitation.email, role: invitation.role }, now);
    const outcome = await deps.invitations.revoke(invitation, actor && { holderId: actor.holderId, role: current! }, entry);
    if (outcome === 'revoked') return;
    // 'gone' (accepted, replaced or revoked meanwhile) reads again and answers 404; 'moved' judges the actor again.
  }
  throw new ServiceBusyError(1, 'The team is being changed by others: try again.');
}
