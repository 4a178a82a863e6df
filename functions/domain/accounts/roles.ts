import { ValidationError } from '../shared/errors';

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
