import type { KeyScope } from './api-key';
import type { KeyMode } from './mode';

/**
 * Who a request acts for, as the gateway's authorizer established it. Every kind names the
 * account whose data the request acts on; handlers that need more narrow on `kind`.
 */
export type Principal = ApiKeyPrincipal | SessionPrincipal;

/** A developer's API key. */
export interface ApiKeyPrincipal {
  kind: 'apiKey';
  /**
   * Whose data the request acts on: the account's id for a live key, the account's test scope
   * for a test key (functions/domain/mode.ts). Every store is keyed by it, so modes never mix.
   */
  accountId: string;
  mode: KeyMode;
  keyId: string;
  /** Requests per minute for this key. */
  rateLimit: number;
  /** What the key may do (a session may do everything). */
  scopes: readonly KeyScope[];
  /** Credits this key may charge per UTC calendar month; absent: no limit. */
  monthlySpendLimit?: number;
}

/**
 * An account holder signed in to the console (a JWT). A sketch: no authorizer issues one yet,
 * and no route accepts one (see `gatewayAccess` in functions/http/route.ts).
 */
export interface SessionPrincipal {
  kind: 'session';
  accountId: string;
  userId: string;
  /** Requests per minute for this user. */
  rateLimit: number;
}
