import { partitionOf, type KeyMode } from '../shared/partition';
import type { SessionMembership, SessionPrincipal } from './principal';

/** What the authorizer establishes for a session, before the request picks an account or a mode. */
export interface SessionCaller {
  holderId: string;
  email: string;
  rateLimit: number;
  /** Default first (roles.ts, defaultFirst). */
  memberships: readonly SessionMembership[];
}

/**
 * The account a session acts on: `requested` (the `Vidgen-Account` header) when the holder is a
 * member of it, else the default (the first membership). Not a member of the account asked for,
 * or of none: no role and no partition, so the access check refuses every route but the
 * holder's own (GET /accounts, their invitations). The one place a session's account is chosen:
 * only from the holder's own list, so no header reaches another account's data.
 */
export function sessionActingOn(caller: SessionCaller, requested: string | undefined, mode: KeyMode): SessionPrincipal {
  const base = { kind: 'session', mode, holderId: caller.holderId, email: caller.email, rateLimit: caller.rateLimit, memberships: caller.memberships } as const;
  const chosen = requested === undefined ? caller.memberships[0] : caller.memberships.find((membership) => membership.accountId === requested);
  if (chosen) return { ...base, partitionId: partitionOf(chosen.accountId, mode), accountId: chosen.accountId, role: chosen.role };
  const refusal =
    requested === undefined
      ? 'You are not a member of any account: accept an invitation (GET /invitations) to join one.'
      : `You are not a member of ${requested}.`;
  return { ...base, partitionId: '', accountId: requested ?? null, role: null, refusal };
}
