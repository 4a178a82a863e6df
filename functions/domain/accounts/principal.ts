import type { KeyScope } from './api-key';
import type { KeyMode } from '../shared/partition';
import type { Role } from './roles';

/**
 * Who a request acts for, as the gateway's authorizer established it. Every kind names the
 * account whose data the request acts on; handlers that need more narrow on `kind`.
 */
export type Principal = ApiKeyPrincipal | SessionPrincipal;

/** A developer's API key. */
export interface ApiKeyPrincipal {
  kind: 'apiKey';
  /**
   * Whose data the request acts on (its partition): the account's id for a live key, the account's
   * test partition for a test key (domain/shared/partition.ts). Every store is keyed by it, so modes
   * never mix.
   */
  partitionId: string;
  mode: KeyMode;
  keyId: string;
  /** Requests per minute for this key. */
  rateLimit: number;
  /** What the key may do (a session may do everything). */
  scopes: readonly KeyScope[];
  /** Credits this key may charge per UTC calendar month; absent: no limit. */
  monthlySpendLimit?: number;
  /** Credits this key may charge to one end user per UTC calendar month; absent: no limit. */
  endUserMonthlySpendLimit?: number;
}

/**
 * An account holder signed in to the console (an access token from the identity provider). The
 * authorizer lists every account the holder belongs to (`memberships`, default first); the
 * request picks one (`Vidgen-Account`, else the default) and its mode (`Vidgen-Mode`), both
 * applied after the gateway, so one cached authorization serves every account and mode.
 */
export interface SessionPrincipal {
  kind: 'session';
  /**
   * As for a key: the chosen account's id in live mode, its test partition in test mode. Empty
   * when the holder acts on no account (`role` null): the access check lets such a session reach
   * only the holder's own routes, which read no partition.
   */
  partitionId: string;
  mode: KeyMode;
  /** The live account chosen; null when the holder belongs to no account. */
  accountId: string | null;
  /** The holder's role in that account; null when they are not a member of it. */
  role: Role | null;
  /** Why `role` is null, as the 403 says it. */
  refusal?: string;
  /** The identity provider's id of the holder (Cognito's `sub`). */
  holderId: string;
  email: string;
  /** Requests per minute for this holder (the default limit). */
  rateLimit: number;
  /** Every account the holder belongs to, default first, as the authorizer read them. */
  memberships: readonly SessionMembership[];
}

/** One account of a session, with the holder's role there. */
export interface SessionMembership {
  accountId: string;
  role: Role;
}
