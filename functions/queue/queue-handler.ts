import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { ZodType } from 'zod';
import { logger } from '../observability/logger';
import { observe } from '../observability/middleware';

/**
 * A Lambda handler for an SQS queue (and the local in-process queue, which sends the same
 * events): each record's body is parsed with `schema` and processed on its own; the records
 * that throw are reported as batch item failures, so only they are delivered again. A body
 * that does not parse can never succeed: it is logged and dropped rather than retried.
 */
export function queueHandler<T>(name: string, schema: ZodType<T>, process: (message: T, receiveCount: number) => Promise<void>) {
  return observe(async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const failures: { itemIdentifier: string }[] = [];
    await Promise.all(
      event.Records.map(async (record) => {
        let message: T;
        try {
          message = schema.parse(JSON.parse(record.body));
        } catch (error) {
          logger.error(`${name}: unreadable message dropped`, { message_id: record.messageId, error: String(error) });
          return;
        }
        try {
          await process(message, Number(record.attributes.ApproximateReceiveCount ?? 1));
        } catch (error) {
          logger.warn(`${name}: message failed, will be retried`, { message_id: record.messageId, error: String(error) });
          failures.push({ itemIdentifier: record.messageId });
        }
      }),
    );
    return { batchItemFailures: failures };
  });
}
