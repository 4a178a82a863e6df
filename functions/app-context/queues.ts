import { boundedClientConfig, CONTROL_PLANE_BOUNDS } from '#adapters/aws-client-options';
import { InProcessQueue } from '#adapters/queues/in-process-queue';
import { QUEUE_URL_VARIABLES, type QueueName } from '#adapters/queues/queue-names';
import type { MessageQueue } from '#domain/shared/ports';
import { traced } from '#observability/client-tracing';

/**
 * How long a received message stays hidden locally: longer than its consumer can take, as each
 * SQS queue's visibility timeout is (lib/stateless-stack.ts sizes those from the consumers).
 */
const LOCAL_VISIBILITY_MS: Record<QueueName, number> = {
  'webhook-deliveries': 30_000,
  submissions: 60_000,
  // One attempt may stream for up to 13 minutes.
  'output-deliveries': 15 * 60_000,
};

const localQueues = new Map<QueueName, InProcessQueue<unknown>>();

/**
 * The in-process stand-in for a queue when no SQS queue is configured: one per name and
 * process, so the local stack can start its consumer on the queue the handlers send to.
 */
export function localQueue<T>(name: QueueName): InProcessQueue<T> {
  let queue = localQueues.get(name);
  if (!queue) {
    queue = new InProcessQueue<unknown>({ name, visibilityTimeoutMs: LOCAL_VISIBILITY_MS[name], maxReceiveCount: 5, now: Date.now });
    localQueues.set(name, queue);
  }
  return queue as InProcessQueue<T>;
}

/**
 * The SQS queue at `queueUrl`, or locally the in-process one; never the latter on Lambda. The
 * SQS client and adapter are imported here, on the first send, so a function that never sends
 * does not load them at cold start (test/process/bundle-graph.test.ts keeps them dynamic-only).
 */
async function messageQueue<T>(name: QueueName, queueUrl: string | undefined, region: string): Promise<MessageQueue<T>> {
  if (queueUrl) {
    const [{ SQSClient }, { SqsQueue }] = await Promise.all([import('@aws-sdk/client-sqs'), import('#adapters/queues/sqs-queue')]);
    return new SqsQueue<T>(traced(new SQSClient({ region, ...boundedClientConfig(CONTROL_PLANE_BOUNDS) })), queueUrl);
  }
  // Work queued in a Lambda's memory is lost when it freezes: refuse rather than drop it.
  if (process.env.AWS_LAMBDA_FUNCTION_NAME) throw new Error(`${QUEUE_URL_VARIABLES[name]} is required on Lambda.`);
  return localQueue<T>(name);
}

/**
 * The queue `messageQueue` picks, resolved on the first `send`: the lifecycle and the webhook
 * parts are built by functions that never send (GET /videos/{id} never submits, GET /webhooks
 * never delivers), and the stack gives a queue's URL only to the functions that send to it
 * (their specs' needs). A function that does send without one still fails, on that send.
 */
export function lazyMessageQueue<T>(name: QueueName, queueUrl: string | undefined, region: string): MessageQueue<T> {
  let queue: Promise<MessageQueue<T>> | undefined;
  return {
    async send(message, options) {
      queue ??= messageQueue<T>(name, queueUrl, region);
      await (await queue).send(message, options);
    },
  };
}
