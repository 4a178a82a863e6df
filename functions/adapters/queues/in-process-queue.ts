import { randomUUID } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { MAX_QUEUE_DELAY_SECONDS, type MessageQueue } from '#domain/shared/ports';
import { logger } from '#observability/logger';

export interface InProcessQueueOptions {
  /** Shown in logs and in the records' eventSourceARN. */
  name: string;
  /** How long a received message stays hidden before it is delivered again if not deleted. */
  visibilityTimeoutMs: number;
  /** Deliveries before a message moves to the dead-letter list (SQS's redrive maxReceiveCount). */
  maxReceiveCount: number;
  /** Messages handed to the consumer at once. */
  batchSize?: number;
  pollIntervalMs?: number;
  /** The clock delays and visibility are judged by (ms; real time, injected by the wiring). */
  now: () => number;
}

interface Stored {
  messageId: string;
  body: string;
  visibleAt: number;
  receiveCount: number;
  sentAt: number;
}

export type QueueConsumer = (event: SQSEvent) => Promise<SQSBatchResponse | void>;

/**
 * SQS's semantics in this process, for the local stack and tests: at-least-once delivery,
 * per-message delays, a visibility timeout after which an unfinished message is delivered again
 * (even while its first consumer still runs, as SQS does), partial batch failures, and a
 * dead-letter list after `maxReceiveCount` deliveries. The consumer is the same Lambda handler
 * SQS invokes on AWS, given the same event shape.
 */
export class InProcessQueue<T> implements MessageQueue<T> {
  private readonly messages = new Map<string, Stored>();
  private readonly dead: Stored[] = [];
  private readonly underWay = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: InProcessQueueOptions) {}

  async send(message: T, options: { delaySeconds?: number } = {}): Promise<void> {
    const delaySeconds = options.delaySeconds ?? 0;
    if (!(delaySeconds >= 0 && delaySeconds <= MAX_QUEUE_DELAY_SECONDS)) {
      throw new Error(`${this.options.name}: delaySeconds must be 0 to ${MAX_QUEUE_DELAY_SECONDS}; got ${delaySeconds}.`);
    }
    const now = this.options.now();
    const messageId = randomUUID();
    this.messages.set(messageId, { messageId, body: JSON.stringify(message), visibleAt: now + delaySeconds * 1000, receiveCount: 0, sentAt: now });
  }

  /** Whether a consumer is attached (one per queue, as one event source mapping per SQS queue). */
  get running(): boolean {
    return this.timer !== undefined;
  }

  /** Starts delivering to `consumer` until `stop()`. */
  start(consumer: QueueConsumer): void {
    if (this.timer) throw new Error(`${this.options.name}: already started.`);
    this.timer = setInterval(() => this.poll(consumer), this.options.pollIntervalMs ?? 100);
    this.timer.unref();
  }

  /** Stops delivering and waits for the batches under way. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await Promise.allSettled([...this.underWay]);
  }

  /** Messages waiting or in flight (not deleted, not dead). */
  get depth(): number {
    return this.messages.size;
  }

  /** Bodies of the messages that exhausted their deliveries. */
  deadLetters(): T[] {
    return this.dead.map((stored) => JSON.parse(stored.body) as T);
  }

  /** Delivers what is visible now to `consumer` once (tests drive the queue with this). */
  async pollOnce(consumer: QueueConsumer): Promise<void> {
    await this.poll(consumer);
  }

  private poll(consumer: QueueConsumer): Promise<void> {
    const now = this.options.now();
    const batch: Stored[] = [];
    for (const stored of this.messages.values()) {
      if (batch.length >= (this.options.batchSize ?? 10)) break;
      if (stored.visibleAt > now) continue;
      if (stored.receiveCount >= this.options.maxReceiveCount) {
        this.messages.delete(stored.messageId);
        this.dead.push(stored);
        logger.warn('message moved to the dead-letter list', { queue: this.options.name, message_id: stored.messageId });
        continue;
      }
      stored.receiveCount += 1;
      stored.visibleAt = now + this.options.visibilityTimeoutMs;
      batch.push(stored);
    }
    if (batch.length === 0) return Promise.resolve();
    const run = this.deliver(consumer, batch).finally(() => this.underWay.delete(run));
    this.underWay.add(run);
    return run;
  }

  private async deliver(consumer: QueueConsumer, batch: Stored[]): Promise<void> {
    // Snapshot what this delivery saw: a redelivery after the visibility timeout bumps the count.
    const received = batch.map((stored) => ({ stored, receiveCount: stored.receiveCount }));
    let failed: Set<string>;
    try {
      const response = await consumer({ Records: received.map(({ stored, receiveCount }) => this.record(stored, receiveCount)) });
      failed = new Set((response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
    } catch (error) {
      logger.warn('queue consumer failed', { queue: this.options.name, error: String(error) });
      failed = new Set(batch.map((stored) => stored.messageId));
    }
    for (const { stored, receiveCount } of received) {
      // Only the delivery that still holds the message may delete it (as an SQS receipt handle).
      if (failed.has(stored.messageId) || stored.receiveCount !== receiveCount) continue;
      this.messages.delete(stored.messageId);
    }
  }

  private record(stored: Stored, receiveCount: number): SQSRecord {
    return {
      messageId: stored.messageId,
      receiptHandle: `${stored.messageId}#${receiveCount}`,
      body: stored.body,
      attributes: {
        ApproximateReceiveCount: String(receiveCount),
        SentTimestamp: String(stored.sentAt),
        SenderId: 'local',
        ApproximateFirstReceiveTimestamp: String(stored.sentAt),
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:local:000000000000:${this.options.name}`,
      awsRegion: 'local',
    };
  }
}
