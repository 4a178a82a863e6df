import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { KeyMode } from '../shared/partition';

/**
 * API keys are `vg_live_` (or `vg_test_` for test mode, functions/domain/shared/partition.ts) + 40 random
 * base62 characters (about 238 bits). Only the SHA-256 of a
 * key is stored. The key id is derived from that hash, so the authorizer finds a key with one
 * GetItem and no secondary index, and operators can name a key without ever seeing it again.
 */
export const API_KEY_PREFIX = 'vg_live_';
export const TEST_API_KEY_PREFIX = 'vg_test_';
const PREFIXES: Record<KeyMode, string> = { live: API_KEY_PREFIX, test: TEST_API_KEY_PREFIX };
const RANDOM_LENGTH = 40;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const API_KEY_PATTERN = /^vg_(live|test)_[0-9A-Za-z]{32,128}$/;

/**
 * What a key may do (CONTRACT.md, "Self-serve API keys"): `generate` starts, uploads and
 * cancels; `read` every GET (and quotes); `webhooks` every /webhooks endpoint.
 */
export const KEY_SCOPES = ['generate', 'read', 'webhooks'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

/** The name a key made before keys had names answers with. */
export const UNNAMED_KEY = 'API key';
/** How much of a key is kept in the clear, to tell keys apart in a list. */
export const KEY_PREFIX_LENGTH = 12;

export interface ApiKeyRecord {
  keyId: string;
  keyHash: string;
  accountId: string;
  /** Which data the key acts on; keys stored before test mode existed are live. */
  mode: KeyMode;
  /** Per-key override of the default requests-per-minute limit. */
  rateLimit?: number;
  /** Absent on keys made before keys had names (they read as UNNAMED_KEY). */
  name?: string;
  /** Absent: every scope (keys made before scopes existed). */
  scopes?: KeyScope[];
  /** After this instant the key is refused (401 saying it expired). */
  expiresAt?: string;
  /** Credits that may be charged through this key per UTC calendar month. */
  monthlySpendLimit?: number;
  /**
   * Credits that may be charged through this key to any one end user per UTC calendar month;
   * with it, every start through the key names its end user.
   */
  endUserMonthlySpendLimit?: number;
  /** The first KEY_PREFIX_LENGTH characters of the key; absent on keys made before it was kept. */
  prefix?: string;
  /** The start of the latest rate window the key was used in (at most a minute stale). */
  lastUsedAt?: string;
  revokedAt?: string;
  createdAt: string;
  /** Who made it (issue 36): a holder id, or `operator`; absent on keys made before it was kept. */
  createdBy?: string;
  /** Bumped by every change a holder or operator makes (PATCH): an optimistic guard; absent = 0. */
  version?: number;
}

export const scopesOf = (record: Pick<ApiKeyRecord, 'scopes'>): KeyScope[] => record.scopes ?? [...KEY_SCOPES];

export const keyPrefixOf = (apiKey: string): string => apiKey.slice(0, KEY_PREFIX_LENGTH);

export const isExpired = (record: Pick<ApiKeyRecord, 'expiresAt'>, now: Date): boolean =>
  record.expiresAt !== undefined && Date.parse(record.expiresAt) <= now.getTime();

export function generateApiKey(mode: KeyMode = 'live'): string {
  let out = '';
  while (out.length < RANDOM_LENGTH) {
    for (const byte of randomBytes(RANDOM_LENGTH)) {
      // 248 = 4 * 62: rejecting the top bytes keeps every character equally likely.
      if (byte < 248 && out.length < RANDOM_LENGTH) out += BASE62[byte % 62];
    }
  }
  return PREFIXES[mode] + out;
}

export function isWellFormedApiKey(key: string): boolean {
  return API_KEY_PATTERN.test(key);
}

/** The mode a key's prefix announces (the stored record decides; the two always agree). */
export function modeOfApiKey(key: string): KeyMode {
  return key.startsWith(TEST_API_KEY_PREFIX) ? 'test' : 'live';
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function keyIdFromHash(keyHash: string): string {
  return `key_${keyHash.slice(0, 24)}`;
}

/** Constant-time comparison of two hex digests. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Extracts the key from an `Authorization: Bearer <key>` header value, or undefined. */
export function parseBearer(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(header);
  return match?.[1];
}
