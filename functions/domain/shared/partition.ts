/**
 * Live and test mode. Every key has a mode, and everything a key's requests read or write
 * (tasks, history positions, balance and ledger, webhook endpoints and deliveries, idempotency
 * records, upload publications) is stored under a *scope*: the account's id for live keys, a
 * derived test scope id for test keys. Stores are keyed by that id, so the two modes share no
 * partition and no key: a test key cannot even name a live task, and the other way round.
 */
export const KEY_MODES = ['live', 'test'] as const;
export type KeyMode = (typeof KEY_MODES)[number];

/** Account ids are `acc_` + a ULID (upper case), so this suffix never collides with one. */
const TEST_SCOPE_SUFFIX = '_test';

/** The scope a key of this mode acts in. */
export function scopeOf(accountId: string, mode: KeyMode): string {
  return mode === 'test' ? `${accountId}${TEST_SCOPE_SUFFIX}` : accountId;
}

export function isTestScope(scopeId: string): boolean {
  return scopeId.endsWith(TEST_SCOPE_SUFFIX);
}

export function modeOfScope(scopeId: string): KeyMode {
  return isTestScope(scopeId) ? 'test' : 'live';
}

/** The account a scope belongs to (the account itself for a live scope). */
export function accountOfScope(scopeId: string): string {
  return isTestScope(scopeId) ? scopeId.slice(0, -TEST_SCOPE_SUFFIX.length) : scopeId;
}

/** `livemode` on task views and events: false for everything a test key made. */
export const isLivemode = (scopeId: string): boolean => !isTestScope(scopeId);
