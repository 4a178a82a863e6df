import { createHmac } from 'node:crypto';
import type { WebhookSigner } from '#domain/webhooks/deliveries';

/**
 * Standard Webhooks signatures: "v1," and the base64 HMAC-SHA256 of `id.timestamp.body`, keyed
 * with the base64 part of a "whsec_..." secret. Computed with node:crypto rather than the
 * `standardwebhooks` package, whose pure-JS SHA-256 and base64 would add 12 KB to every function
 * that signs (the start functions among them, against their 300 KB budget); the tests verify
 * what we sign with that package, as receivers do.
 */
export const signWebhook: WebhookSigner = (secret, eventId, timestamp, body) => {
  const key = webhookSecretKey(secret);
  if (!key) throw new Error('The signing secret is not a Standard Webhooks secret; the value is not shown.');
  const seconds = Math.floor(timestamp.getTime() / 1000);
  return `v1,${createHmac('sha256', key).update(`${eventId}.${seconds}.${body}`).digest('base64')}`;
};

/** The key of a "whsec_<base64>" (or bare base64) secret; undefined unless it is canonical, non-empty base64. */
export function webhookSecretKey(secret: string): Buffer | undefined {
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  return key.length > 0 && key.toString('base64') === encoded ? key : undefined;
}
