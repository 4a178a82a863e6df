import type { Db } from '#adapters/dynamodb/dynamo-client';
import { createSafeFetcher } from '#adapters/safe-fetch';
import { webhookDestinations } from '#adapters/webhook-destinations';
import { webhookSender } from '#adapters/webhook-sender';
import { signWebhook } from '#adapters/webhook-signing';
import type { WebhookConfig } from '#config/service';
import type { DeliveryDeps } from '#domain/webhooks/deliveries';
import type { DestinationPolicy } from '#domain/webhooks/ports';
import { appWebhookConfig } from './config';
import { appDb } from './stores';
import { buildEventPublishing } from './webhook-events';

/** A customer's endpoint has this long to answer an attempt. */
const DELIVERY_TIMEOUT_MS = 10_000;
/** Of an answer's body, read and dropped. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** `realTime`: what the sweeper's resends are paced by. */
export type WebhookDeps = DeliveryDeps & { destinations: DestinationPolicy; realTime: () => number };

export function buildWebhookDeps(config: { region: string; webhooks: WebhookConfig }, db: Db): WebhookDeps {
  const { retrySchedule, allowLoopback } = config.webhooks;
  const fetcher = createSafeFetcher({ allowedOrigins: [], maxBytes: MAX_ANSWER_BYTES, timeoutMs: DELIVERY_TIMEOUT_MS, allowLoopback });
  return {
    ...buildEventPublishing(config, db),
    sign: signWebhook,
    send: webhookSender(fetcher, DELIVERY_TIMEOUT_MS),
    clock: () => new Date(),
    realTime: Date.now,
    retrySchedule,
    destinations: webhookDestinations({ allowLoopback }),
  };
}

let current: WebhookDeps | undefined;

export function webhooks(): WebhookDeps {
  current ??= buildWebhookDeps(appWebhookConfig(), appDb());
  return current;
}
