import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DeadLetterQueue } from './dead-letter-queue';

export interface WorkQueueProps {
  /** Kebab-case queue name as the functions know it (e.g. `webhook-deliveries`); alarms use it. */
  name: string;
  /** What its messages are, for the console and the alarms. */
  purpose: string;
  /** The consumer's timeout: SQS hides a received message for six times that (AWS's advice). */
  consumerTimeout: Duration;
  /** Deliveries before a message moves to the dead-letter queue. */
  maxReceiveCount?: number;
}

export interface ConsumerOptions {
  batchSize?: number;
  /**
   * At most this many concurrent consumer invocations (the event source's maximum concurrency,
   * 2 or more). It caps the consumer without reserved concurrency, which with SQS would throttle
   * the poller and push messages towards the dead-letter queue before they were tried.
   */
  maxConcurrency: number;
}

/**
 * An SQS queue between functions (an event pipeline such as webhook deliveries): encrypted,
 * TLS only, with a redrive to its own DeadLetterQueue, so every queue consumer's failures end
 * where an alarm watches them (ServiceAlarms alarms on the dead letters and on the age of the
 * oldest message).
 */
export class WorkQueue extends Construct {
  readonly name: string;
  readonly purpose: string;
  readonly queue: Queue;
  readonly deadLetters: DeadLetterQueue;

  constructor(scope: Construct, id: string, props: WorkQueueProps) {
    super(scope, id);
    this.name = props.name;
    this.purpose = props.purpose;
    const maxReceiveCount = props.maxReceiveCount ?? 5;
    this.deadLetters = new DeadLetterQueue(this, 'DeadLetters', {
      name: props.name,
      purpose: `${props.purpose} that failed ${maxReceiveCount} deliveries`,
    });
    this.queue = new Queue(this, 'Queue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(props.consumerTimeout.toSeconds() * 6),
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.deadLetters.queue, maxReceiveCount },
      removalPolicy: RemovalPolicy.DESTROY,
    });
  }

  /** The consumer: reports batch item failures (only failed records come back), capped concurrency. */
  consumeWith(fn: IFunction, options: ConsumerOptions): void {
    fn.addEventSource(
      new SqsEventSource(this.queue, {
        reportBatchItemFailures: true,
        batchSize: options.batchSize ?? 10,
        maxConcurrency: options.maxConcurrency,
      }),
    );
  }
}
