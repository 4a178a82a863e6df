import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { MAX_QUEUE_DELAY_SECONDS, type MessageQueue } from '#domain/shared/ports';

/** A message queue on SQS (standard queue, redrive to a DLQ configured by the stack). */
export class SqsQueue<T> implements MessageQueue<T> {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(message: T, options: { delaySeconds?: number } = {}): Promise<void> {
    const delaySeconds = Math.round(options.delaySeconds ?? 0);
    if (!(delaySeconds >= 0 && delaySeconds <= MAX_QUEUE_DELAY_SECONDS)) {
      throw new Error(`delaySeconds must be 0 to ${MAX_QUEUE_DELAY_SECONDS}; got ${delaySeconds}.`);
    }
    await this.sqs.send(
      new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: JSON.stringify(message), DelaySeconds: delaySeconds }),
    );
  }
}
