import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDeliveryStore } from '../adapters/dynamodb/delivery-repository';
import type { Db } from '../adapters/dynamodb/dynamo-client';
import { DynamoWebhookStore } from '../adapters/dynamodb/webhook-repository';
import { InProcessQueue } from '../adapters/queues/in-process-queue';
import { SqsQueue } from '../adapters/queues/sqs-queue';
import { boundedClientConfig, CONTROL_PLANE_BOUNDS } from '../adapters/aws-client-options';
import { traced } from '../observability/client-tracing';
import { createSafeFetcher } from '../adapters/safe-fetch';
import { signWebhook } from '../adapters/webhook-signing';
import type { Config } from '../config';
import { renderEvent } from '../contract/events';
import type { MessageQueue } from '../domain/ports';
import type { DeliveryDeps, DeliveryMessage } from '../domain/webhook-deliveries';
import type { WebhookSettings } from '../domain/webhooks';
import { appConfig } from './config';
import { appDb } from './stores';

/** A customer's endpoint has this long to answer an attempt. */
const DELIVERY_TIMEOUT_MS = 10_000;
/** Of an answer's body, read and dropped. */
const MAX_ANSWER_BYTES = 64 * 1024;

export type WebhookDeps = DeliveryDeps & { settings: WebhookSettings };

/**
 * The in-process delivery queue, when no SQS queue is configured: one per process, so the
 * local stack can start its consumer on the queue the handlers send to.
 */
let localQueue: InProcessQueue<DeliveryMessage> | undefined;
export function localDeliveryQueue(): InProcessQueue<DeliveryMessage> {
  localQueue ??= new InProcessQueue<DeliveryMessage>({
    name: 'webhook-deliveries',
    // Longer than an attempt can take, as the SQS queue's visibility timeout is.
    visibilityTimeoutMs: 30_000,
    maxReceiveCount: 5,
  });
  return localQueue;
}

export function buildWebhookDeps(config: Config, db: Db): WebhookDeps {
  const { queueUrl, retrySchedule, allowLoopback } = config.webhooks;
  if (!queueUrl && process.env.AWS_LAMBDA_FUNCTION_NAME) {
    // Work queued in a Lambda's memory is lost when it freezes: refuse rather than drop events.
    throw new Error('WEBHOOK_QUEUE_URL is required on Lambda.');
  }
  const queue: MessageQueue<DeliveryMessage> = queueUrl
    ? new SqsQueue(traced(new SQSClient({ region: config.region, ...boundedClientConfig(CONTROL_PLANE_BOUNDS) })), queueUrl)
    : localDeliveryQueue();
  const fetcher = createSafeFetcher({ allowedOrigins: [], maxBytes: MAX_ANSWER_BYTES, timeoutMs: DELIVERY_TIMEOUT_MS, allowLoopback });
  return {
    webhooks: new DynamoWebhookStore(db),
    deliveries: new DynamoDeliveryStore(db),
    queue,
    render: renderEvent,
    sign: signWebhook,
    send: (url, body, headers) => fetcher.post(url, body, headers),
    clock: () => new Date(),
    retrySchedule,
    settings: { allowLoopback },
  };
}

let current: WebhookDeps | undefined;

export function webhooks(): WebhookDeps {
  current ??= buildWebhookDeps(appConfig(), appDb());
  return current;
}
