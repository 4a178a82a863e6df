import { createHmac, timingSafeEqual } from 'node:crypto';
import { signWebhook, webhookSecretKey } from '#adapters/webhook-signing';
import { CALLBACK_TOLERANCE_SECONDS, CallbackRejectedError, type CallbackRequest, type CallbackTarget } from '#domain/providers/provider';

/**
 * Provider callbacks signed with the Standard Webhooks scheme (Replicate's, and the simulated
 * provider's): headers webhook-id, webhook-timestamp (unix seconds) and webhook-signature
 * ("v1,<base64 HMAC-SHA256 of id.timestamp.body>", several separated by spaces during a
 * rotation), keyed with the base64 part of a "whsec_..." secret.
 *
 * The signature is computed as we sign our own (adapters/webhook-signing.ts); the timestamp is
 * judged against the `now` the caller passes, not the process clock. The secret never appears in an error message.
 */

const SECRET_PATTERN = /^whsec_[A-Za-z0-9+/]+={0,2}$/;

/** A Standard Webhooks secret: "whsec_" and non-empty base64. */
export function isCallbackSecret(value: string): boolean {
  return SECRET_PATTERN.test(value) && webhookSecretKey(value) !== undefined;
}

/** Throws (without the value) when `secret` is not a Standard Webhooks secret. */
export function assertCallbackSecret(secret: string, what: string): void {
  if (!isCallbackSecret(secret)) {
    throw new Error(`${what} is not a Standard Webhooks secret ("whsec_" followed by base64); the value is not shown.`);
  }
}

/** The three signature headers for one delivery attempt of `body`. */
export function signCallback(secret: string, messageId: string, at: Date, body: string): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signWebhook(secret, messageId, at, body),
  };
}

/** Keeps the URL tokens' key apart from the signing key, though both come from one secret. */
const URL_TOKEN_LABEL = 'vidgen provider-callback URL token v1';

/**
 * The token of our callback URL for one task: HMAC-SHA256 of provider, account and task, keyed
 * with a key derived from the callback secret under its own label (base64url, 43 characters).
 * A callback replayed to another task's URL does not carry that task's token.
 */
export function callbackUrlToken(secret: string, target: CallbackTarget): string {
  const key = createHmac('sha256', secret).update(URL_TOKEN_LABEL).digest();
  return createHmac('sha256', key).update([target.provider, target.accountId, target.taskId].join('\n')).digest('base64url');
}

/** A verified callback: its message id (webhook-id) and its parsed JSON body. */
export interface SignedCallback {
  messageId: string;
  body: unknown;
}

/**
 * Checks a callback's signature and timestamp and returns its message id and parsed JSON body. Throws
 * CallbackRejectedError: 'signature' (no secret configured, headers missing, no matching
 * signature), 'stale' (signed, but more than CALLBACK_TOLERANCE_SECONDS away from `now`: a
 * replay), 'malformed' (signed, but not JSON).
 */
export function verifySignedCallback(secret: string | undefined, request: CallbackRequest, now: Date): SignedCallback {
  if (secret === undefined) {
    throw new CallbackRejectedError('signature', 'No callback secret is configured, so no callback can be verified.');
  }
  const id = request.headers['webhook-id'];
  const timestamp = request.headers['webhook-timestamp'];
  const signatures = request.headers['webhook-signature'];
  if (!id || !timestamp || !signatures) {
    throw new CallbackRejectedError('signature', 'The callback lacks the webhook-id, webhook-timestamp or webhook-signature header.');
  }
  if (!/^\d{1,12}$/.test(timestamp)) {
    throw new CallbackRejectedError('signature', 'The callback has an unreadable webhook-timestamp.');
  }
  const seconds = Number(timestamp);
  const expected = Buffer.from(signWebhook(secret, id, new Date(seconds * 1000), request.body));
  const matches = signatures.split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new CallbackRejectedError('signature', 'The callback signature does not match.');

  const skew = Math.abs(now.getTime() / 1000 - seconds);
  if (skew > CALLBACK_TOLERANCE_SECONDS) {
    throw new CallbackRejectedError('stale', `The callback was signed ${Math.round(skew)} s away from now.`);
  }
  try {
    return { messageId: id, body: JSON.parse(request.body) as unknown };
  } catch {
    throw new CallbackRejectedError('malformed', 'The callback body is not JSON.');
  }
}
