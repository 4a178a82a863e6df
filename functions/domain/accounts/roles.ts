import { DomainError, ForbiddenError, NotFoundError, ValidationError } from '../shared/errors';

/**
 * An account's members and their roles (CONTRACT.md, "Teams"). A holder may belong to several
 * accounts, one role in each; the holder whose first sign-in opened an account is its owner.
 */
export const ROLES = ['owner', 'admin', 'developer', 'billing', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const isRole = (value: unknown): value is Role => (ROLES as readonly unknown[]).includes(value);

/** One account a holder belongs to, with their role there. */
export interface Membership {
  accountId: string;
  role: Role;
  joinedAt: string;
}

/** The holder is already a member of the account. */
export class AlreadyMemberError extends ValidationError {}

/** Members an account may have. */
export const MAX_MEMBERS = 200;

/** Bounds the authorizer's context (one `acc_…=role` per membership) and `GET /accounts`. */
export const MAX_MEMBERSHIPS = 50;

/**
 * A holder's memberships, the default first: the earliest-joined account they own, else the
 * earliest joined (CONTRACT.md: "default: the one they own, else the earliest joined"). Ties on
 * the join instant fall to the account id, so the order is total.
 */
export function defaultFirst(memberships: readonly Membership[]): Membership[] {
  const byJoin = [...memberships].sort((a, b) => (a.joinedAt === b.joinedAt ? (a.accountId < b.accountId ? -1 : 1) : a.joinedAt < b.joinedAt ? -1 : 1));
  const owned = byJoin.find((membership) => membership.role === 'owner');
  return owned ? [owned, ...byJoin.filter((membership) => membership !== owned)] : byJoin;
}

/** The change would leave the account without an owner (409 `last_owner`). */
export class LastOwnerError extends DomainError {
  constructor(accountId: string) {
    super(`${accountId} would be left without an owner: make another member an owner first.`);
  }
}

/**
 * Whether a member of `actor` role may change a member of `target` role to `newRole` (undefined:
 * remove them). CONTRACT.md, "Teams": owners and admins manage members, admins not owners (they
 * may neither change nor remove an owner, nor make one).
 */
export function mayManage(actor: Role, target: Role, newRole: Role | undefined): boolean {
  if (actor === 'owner') return true;
  if (actor === 'admin') return target !== 'owner' && newRole !== 'owner';
  return false;
}

/** What the judge reads, consistently, after a refused write (or before the first try). */
export interface TeamState {
  owners: number;
  /** The target's role; undefined when they are no member. */
  target: Role | undefined;
  /** The actor's role; null when they are no member any more; undefined for an operator (no actor check). */
  actor?: Role | null;
}

/**
 * The one judge of a member change, in this order: the target is no member (404); the change
 * would leave no owner (409 `last_owner`); the actor may not make it (403). Undefined: go (or,
 * after a refused write, try again: the read moved).
 */
export function judgeMemberChange(state: TeamState, change: { accountId: string; holderId: string; newRole: Role | undefined }): Error | undefined {
  const { target, actor, owners } = state;
  if (target === undefined) return new NotFoundError(`${change.holderId} is not a member of ${change.accountId}.`);
  if (target === 'owner' && change.newRole !== 'owner' && owners <= 1) return new LastOwnerError(change.accountId);
  if (actor === null) return new ForbiddenError(`You are no longer a member of ${change.accountId}.`);
  if (actor !== undefined && !mayManage(actor, target, change.newRole)) {
    if (actor === 'admin') return new ForbiddenError(target === 'owner' ? 'Only an owner may change or remove an owner.' : 'Only an owner may make an owner.');
    return new ForbiddenError(`Your role in ${change.accountId} (${actor}) may not manage members; a role that may: owner, admin.`);
  }
  return undefined;
}
