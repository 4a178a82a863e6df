/**
 * Live and test mode. Every key has a mode, and everything a key's requests read or write
 * (tasks, history positions, balance and ledger, webhook endpoints and deliveries, idempotency
 * records, upload publications) is stored under a *partition*: the account's id for live keys,
 * a derived test partition id for test keys. Stores are keyed by that id, so the two modes share
 * no item and no key: a test key cannot even name a live task, and the other way round. ("Scope"
 * means only what a key may do: KeyScope, accounts/api-key.ts.)
 */
export const KEY_MODES = ['live', 'test'] as const;
export type KeyMode = (typeof KEY_MODES)[number];

/** Account ids are `acc_` + a ULID (upper case), so this suffix never collides with one. */
const TEST_PARTITION_SUFFIX = '_test';

/** The partition a key of this mode acts in. */
export function partitionOf(accountId: string, mode: KeyMode): string {
  return mode === 'test' ? `${accountId}${TEST_PARTITION_SUFFIX}` : accountId;
}

export function isTestPartition(partitionId: string): boolean {
  return partitionId.endsWith(TEST_PARTITION_SUFFIX);
}

export function modeOfPartition(partitionId: string): KeyMode {
  return isTestPartition(partitionId) ? 'test' : 'live';
}

/** The account a partition belongs to (the account itself for the live partition). */
export function accountOfPartition(partitionId: string): string {
  return isTestPartition(partitionId) ? partitionId.slice(0, -TEST_PARTITION_SUFFIX.length) : partitionId;
}

/** `livemode` on task views and events: false for everything a test key made. */
export const isLivemode = (partitionId: string): boolean => !isTestPartition(partitionId);
