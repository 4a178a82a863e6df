import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface DeadLetterQueueProps {
  /** Short kebab-case name: the depth alarm is `vidgen-<stage>-dlq-<name>`. */
  name: string;
  /** What lands here, for the console and the alarm's runbook line. */
  purpose: string;
}

/**
 * Where a background invocation goes when it has failed for good (a Lambda on-failure
 * destination, or an EventBridge target's dead-letter queue): encrypted, TLS only, kept for
 * the 14 days SQS allows, so an operator can read what failed. Every one gets a depth alarm
 * (ServiceAlarms); nothing consumes them automatically: the sweeper already retries the work
 * itself, the messages are evidence.
 */
export class DeadLetterQueue extends Construct {
  readonly queue: Queue;
  readonly purpose: string;
  readonly name: string;

  constructor(scope: Construct, id: string, props: DeadLetterQueueProps) {
    super(scope, id);
    this.purpose = props.purpose;
    this.name = props.name;
    this.queue = new Queue(this, 'Queue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      // Evidence of failures, not data: it goes with the stateless stack.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(this.queue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: `This queue is itself a dead-letter queue (${props.purpose}); cdk-nag only recognises dead-letter queues named in another queue's redrive policy, not Lambda or EventBridge ones.`,
    });
  }
}
