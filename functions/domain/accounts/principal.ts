import type { KeyScope } from './api-key';
import type { KeyMode } from '../shared/partition';

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
 * authorizer names the holder's account; the mode is the request's own (`Vidgen-Mode`), applied
 * after the gateway, so one cached authorization serves both modes.
 */
export interface SessionPrincipal {
  kind: 'session';
  /** As for a key: the account's id in live mode, its test partition in test mode. */
  partitionId: string;
  mode: KeyMode;
  /** The identity provider's id of the holder (Cognito's `sub`). */
  holderId: string;
  email: string;
  /** Requests per minute for this holder (the default limit). */
  rateLimit: number;
}
