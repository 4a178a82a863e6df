import { newAuditId } from './ids';
import { accountOfPartition, isTestPartition } from './partition';

/**
 * The audit log (issue 36, CONTRACT.md "Teams"): one entry per change of an account's keys,
 * webhooks, members, billing state or operator grants, written in the same transaction as the
 * change (the adapters' `auditPart`), so there is no change without its entry and no entry
 * without its change. Entries carry who (actor), from where (origin), what (action, target) and
 * allow-listed details: never key material, key hashes, webhook secrets or URL queries.
 */
export type ActorType = 'holder' | 'key' | 'operator' | 'stripe';
export interface AuditActor {
  type: ActorType;
  id: string;
  email: string | null;
}
export interface AuditOrigin {
  ip: string | null;
  userAgent: string | null;
}
/** What a use case is given to stamp the entries of the changes it makes. */
export interface AuditStamp {
  actor: AuditActor;
  origin: AuditOrigin;
}

export const AUDIT_ACTIONS = [
  'account.created',
  'account.access_changed',
  'account.retention_changed',
  'key.created',
  'key.updated',
  'key.revoked',
  'webhook.created',
  'webhook.deleted',
  'billing.checkout_started',
  'billing.purchase_credited',
  'billing.purchase_reversed',
  'billing.subscription_changed',
  'billing.paid_access_granted',
  'credits.granted',
  'credits.test_added',
  'member.joined',
  'member.role_changed',
  'member.removed',
  'member.invited',
  'invitation.revoked',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export type AuditTargetType = 'account' | 'key' | 'webhook' | 'checkout' | 'purchase' | 'subscription' | 'member' | 'invitation';
export interface AuditTarget {
  type: AuditTargetType;
  id: string;
}

/** A detail value: only plain data, so an entry is a flat, serializable record. */
export type AuditValue = string | number | boolean | null | readonly string[];
export type AuditDetails = Readonly<Record<string, AuditValue | { from: AuditValue; to: AuditValue }>>;

export interface AuditEntry {
  /** `aud_` + a ULID: newest first is the reverse id order. */
  id: string;
  /** Always the live account: test-mode changes carry `details.mode = "test"`. */
  accountId: string;
  at: string;
  actor: AuditActor;
  action: AuditAction;
  target: AuditTarget;
  origin: AuditOrigin;
  details: AuditDetails;
}

/** Entries are kept at least a year (the table's TTL deletes them some time after). */
export const AUDIT_RETENTION_DAYS = 365;
const DAY_S = 24 * 60 * 60;
export const auditExpiresAt = (at: string): number => Math.floor(Date.parse(at) / 1000) + AUDIT_RETENTION_DAYS * DAY_S;

export const MAX_USER_AGENT_LENGTH = 256;
const MAX_DETAIL_STRING = 512;

/**
 * Anything shaped like a secret this service hands out, wherever a caller put it (a key named
 * after a key, a user agent carrying one): API keys, webhook secrets, Stripe secrets.
 */
const SECRET_SHAPES = /(?:vg_(?:live|test)_[0-9A-Za-z]+|whsec_[0-9A-Za-z+/=]+|(?:sk|rk)_(?:live|test)_[0-9A-Za-z]+)/g;
const REDACTED = '[redacted]';

/** Control characters (a header or name could carry them into a CSV or a terminal). */
const CONTROL = /[\u0000-\u001f\u007f]/g;

function clean(text: string, max: number): string {
  return text.replace(CONTROL, '').replace(SECRET_SHAPES, REDACTED).slice(0, max);
}

/** Origin and path only: no query, fragment or userinfo (Slack-style URLs carry tokens there). */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return REDACTED;
  }
}

function cleanValue(value: AuditValue): AuditValue {
  if (typeof value === 'string') return clean(value, MAX_DETAIL_STRING);
  if (Array.isArray(value)) return (value as readonly string[]).map((item) => clean(String(item), MAX_DETAIL_STRING));
  return value as AuditValue;
}

function cleanDetails(details: AuditDetails): AuditDetails {
  const out: Record<string, AuditValue | { from: AuditValue; to: AuditValue }> = {};
  for (const [name, value] of Object.entries(details)) {
    if (value === undefined) continue;
    out[name] =
      value !== null && typeof value === 'object' && !Array.isArray(value)
        ? { from: cleanValue((value as { from: AuditValue }).from ?? null), to: cleanValue((value as { to: AuditValue }).to ?? null) }
        : cleanValue(value as AuditValue);
  }
  return out;
}

export function cleanOrigin(origin: AuditOrigin): AuditOrigin {
  return {
    ip: origin.ip === null ? null : clean(origin.ip, 64) || null,
    userAgent: origin.userAgent === null ? null : clean(origin.userAgent, MAX_USER_AGENT_LENGTH) || null,
  };
}

/**
 * The entry of one change to the account behind `partitionId` (a test partition's changes are
 * the account's, marked `mode: "test"`). Every string is cleaned of control characters and of
 * anything shaped like a secret.
 */
export function auditEntry(
  stamp: AuditStamp,
  partitionId: string,
  action: AuditAction,
  target: AuditTarget,
  details: AuditDetails,
  now: Date,
): AuditEntry {
  return {
    id: newAuditId(),
    accountId: accountOfPartition(partitionId),
    at: now.toISOString(),
    actor: { type: stamp.actor.type, id: clean(stamp.actor.id, 128), email: stamp.actor.email === null ? null : clean(stamp.actor.email, 320) },
    action,
    target: { type: target.type, id: clean(target.id, 128) },
    origin: cleanOrigin(stamp.origin),
    details: cleanDetails(isTestPartition(partitionId) ? { ...details, mode: 'test' } : details),
  };
}

/** The actor of a request: the signed-in holder, or the API key (by id). */
export function actorOf(principal: { kind: 'session'; holderId: string; email: string } | { kind: 'apiKey'; keyId: string }): AuditActor {
  return principal.kind === 'session'
    ? { type: 'holder', id: principal.holderId, email: principal.email }
    : { type: 'key', id: principal.keyId, email: null };
}

/** The operator (the admin CLI, with AWS credentials on the table). */
export const OPERATOR: AuditActor = { type: 'operator', id: 'operator', email: null };
export const NO_ORIGIN: AuditOrigin = { ip: null, userAgent: null };
/** Stripe, acting through one of its events (the id, `evt_…`, names what it did). */
export const stripeActor = (eventId: string): AuditActor => ({ type: 'stripe', id: eventId, email: null });

/** The operator's stamp: `vidgen-admin/<version>` as its user agent. */
export const operatorStamp = (version: string): AuditStamp => ({ actor: OPERATOR, origin: { ip: null, userAgent: `vidgen-admin/${version}` } });
/** The operator acting through code rather than the CLI (seed scripts, the local demo account, tests). */
export const OPERATOR_STAMP: AuditStamp = { actor: OPERATOR, origin: { ip: null, userAgent: 'vidgen-admin' } };

/** One page of an account's entries, newest first. */
export interface AuditPage {
  entries: AuditEntry[];
  hasMore: boolean;
}

export const AUDIT_ID_PATTERN = /^aud_[0-9A-HJKMNP-TV-Z]{26}$/;
