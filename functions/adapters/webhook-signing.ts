import { Webhook } from 'standardwebhooks';
import type { WebhookSigner } from '../domain/webhook-deliveries';

/** Standard Webhooks signatures, made by the `standardwebhooks` library receivers verify with. */
export const signWebhook: WebhookSigner = (secret, eventId, timestamp, body) => new Webhook(secret).sign(eventId, timestamp, body);
