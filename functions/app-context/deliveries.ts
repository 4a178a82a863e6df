import { outputSender } from '#adapters/output-sender';
import { createSafeFetcher } from '#adapters/safe-fetch';
import { destinationLoopback, outputDeliveryConfig } from '#config/output-delivery';
import type { DeliveryDeps, DeliveryRef } from '#domain/tasks/delivery';
import { publishDeliveryFailed, taskEndingsOf } from '#domain/webhooks/deliveries';
import { powertoolsTelemetry } from '#observability/telemetry';
import { appMediaStorage } from './media';
import { lazyMessageQueue } from './queues';
import { stores } from './stores';
import { webhookEvents } from './webhook-events';

/** Of a store's answer, read for its error code and dropped. */
const MAX_ANSWER_BYTES = 64 * 1024;

let current: DeliveryDeps | undefined;

/**
 * The delivery worker's ports (deliver-output): our bucket streamed into safe-fetch's PUT, the
 * delivery queue for the next attempt, and event publishing for `*.delivery_failed`.
 */
export function deliveryDeps(): DeliveryDeps {
  if (current) return current;
  const config = outputDeliveryConfig();
  const storage = appMediaStorage();
  const publishing = webhookEvents();
  // The timeout here is safe-fetch's for GET/POST; a PUT has its own limits (output-sender.ts).
  const fetcher = createSafeFetcher({ allowedOrigins: [], maxBytes: MAX_ANSWER_BYTES, timeoutMs: 30_000, allowLoopback: destinationLoopback() });
  current = {
    tasks: stores().tasks,
    media: storage,
    sender: outputSender((key) => storage.openForDelivery(key), fetcher),
    queue: lazyMessageQueue<DeliveryRef>('output-deliveries', config.queueUrl, config.region),
    events: { ...taskEndingsOf(publishing), deliveryFailed: (task) => publishDeliveryFailed(publishing, task) },
    clock: () => new Date(),
    telemetry: powertoolsTelemetry,
    retrySchedule: config.retrySchedule,
  };
  return current;
}
