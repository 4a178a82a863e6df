/** Ports every aggregate may use. */

/**
 * A work queue: each message is delivered at least once (so consumers must be idempotent),
 * after its delay, to a consumer that may fail it to have it delivered again. SQS on AWS, an
 * in-process queue with the same semantics on the local stack.
 */
export interface MessageQueue<T> {
  /** `delaySeconds` is at most MAX_QUEUE_DELAY_SECONDS: longer waits are re-sent by the consumer. */
  send(message: T, options?: { delaySeconds?: number }): Promise<void>;
}

/** SQS's limit on a message's delay, kept by every implementation. */
export const MAX_QUEUE_DELAY_SECONDS = 900;
