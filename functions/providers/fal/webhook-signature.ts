import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { CALLBACK_TOLERANCE_SECONDS, CallbackRejectedError, type CallbackRequest } from '#domain/providers/provider';

/**
 * fal.ai's webhook signatures (https://docs.fal.ai/model-apis/model-endpoints/webhooks,
 * "Verifying Your Webhook"): ED25519 over
 *
 *   {x-fal-webhook-request-id}\n{x-fal-webhook-user-id}\n{x-fal-webhook-timestamp}\n{hex SHA-256 of the raw body}
 *
 * hex-encoded in x-fal-webhook-signature, checked against every Ed25519 key of fal's published
 * JWKS (keys rotate: any current key may have signed). The timestamp (unix seconds) must be
 * within CALLBACK_TOLERANCE_SECONDS (5 minutes, fal's advice too).
 *
 * The key set is cached for at most `maxAgeMs` (fal: up to 24 hours). A signature no cached key
 * verifies makes us fetch the set again (a key added by a rotation), at most once per
 * `minRefreshMs`, so a flood of forged callbacks cannot turn into a flood of requests to fal.
 */
export interface JwksSource {
  /** Reads the key set's JSON text (bounded in time and size: adapters/safe-fetch.ts). */
  fetchText(): Promise<string>;
  now?: () => number;
  maxAgeMs?: number;
  minRefreshMs?: number;
}

const DEFAULT_MAX_AGE_MS = 12 * 60 * 60_000;
const DEFAULT_MIN_REFRESH_MS = 60_000;
const SIGNED_HEADERS = ['x-fal-webhook-request-id', 'x-fal-webhook-user-id', 'x-fal-webhook-timestamp', 'x-fal-webhook-signature'] as const;

export class FalWebhookVerifier {
  private keys: KeyObject[] = [];
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private pending: Promise<KeyObject[]> | undefined;

  constructor(private readonly source: JwksSource) {}

  /** Verifies a callback; returns the request id fal signed. Throws CallbackRejectedError otherwise. */
  async verify(request: CallbackRequest, now: Date): Promise<string> {
    const [requestId, userId, timestamp, signature] = SIGNED_HEADERS.map((name) => request.headers[name]);
    if (!requestId || !userId || !timestamp || !signature) {
      throw new CallbackRejectedError('signature', 'The callback lacks one of the x-fal-webhook-* signature headers.');
    }
    if (!/^\d{1,12}$/.test(timestamp) || !/^([0-9a-f]{2})+$/i.test(signature)) {
      throw new CallbackRejectedError('signature', 'The callback has an unreadable x-fal-webhook-timestamp or x-fal-webhook-signature.');
    }
    const message = Buffer.from([requestId, userId, timestamp, createHash('sha256').update(request.body).digest('hex')].join('\n'));
    const bytes = Buffer.from(signature, 'hex');
    const matches = (keys: KeyObject[]) => keys.some((key) => verify(null, message, key, bytes));
    const current = this.fresh() ? this.keys : await this.refresh();
    if (!matches(current)) {
      // Perhaps signed with a key added since we fetched the set.
      const later = this.source.now?.() ?? Date.now();
      if (later - this.fetchedAt < (this.source.minRefreshMs ?? DEFAULT_MIN_REFRESH_MS) || !matches(await this.refresh())) {
        throw new CallbackRejectedError('signature', 'The callback signature does not verify with any of fal\'s published keys.');
      }
    }
    // Checked after the signature, so only a genuine (replayed) callback is told it is stale.
    if (Math.abs(now.getTime() / 1000 - Number(timestamp)) > CALLBACK_TOLERANCE_SECONDS) {
      throw new CallbackRejectedError('stale', 'The callback\'s signed timestamp is more than 5 minutes away.');
    }
    return requestId;
  }

  private fresh(): boolean {
    return (this.source.now?.() ?? Date.now()) - this.fetchedAt < (this.source.maxAgeMs ?? DEFAULT_MAX_AGE_MS);
  }

  /** One fetch at a time; a failed fetch keeps the keys we had (and is tried again on the next callback). */
  private refresh(): Promise<KeyObject[]> {
    this.pending ??= this.source
      .fetchText()
      .then((text) => {
        this.keys = keysOf(text);
        this.fetchedAt = this.source.now?.() ?? Date.now();
        return this.keys;
      })
      .catch(() => this.keys)
      .finally(() => (this.pending = undefined));
    return this.pending;
  }
}

/** The Ed25519 public keys of a JWKS document (others ignored). */
function keysOf(text: string): KeyObject[] {
  const document = JSON.parse(text) as { keys?: unknown };
  if (!Array.isArray(document.keys)) throw new Error('not a JWKS document');
  return document.keys.flatMap((jwk) => {
    const key = jwk as { kty?: unknown; crv?: unknown; x?: unknown };
    if (key.kty !== 'OKP' || key.crv !== 'Ed25519' || typeof key.x !== 'string') return [];
    try {
      return [createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: key.x }, format: 'jwk' })];
    } catch {
      return [];
    }
  });
}
