import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { ZodType } from 'zod';

/**
 * A Lambda handler for an SQS queue (and the local in-process queue, which sends the same
 * events): each record's body is parsed with `schema` and processed on its own; the records
 * that throw are reported as batch item failures, so only they are delivered again. A body
 * that does not parse can never succeed: it is logged and dropped rather than retried.
 */
export function queueHandler<T>(name: string, schema: ZodType<T>, process: (message: T, receiveCount: number) => Promise<void>) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const failures: { itemIdentifier: string }[] = [];
    await Promise.all(
      event.Records.map(async (record) => {
        let message: T;
        try {
          message = schema.parse(JSON.parse(record.body));
        } catch (error) {
          console.error(JSON.stringify({ level: 'error', message: `${name}: unreadable message dropped`, messageId: record.messageId, error: String(error) }));
          return;
        }
        try {
          await process(message, Number(record.attributes.ApproximateReceiveCount ?? 1));
        } catch (error) {
          console.warn(JSON.stringify({ level: 'warn', message: `${name}: message failed, will be retried`, messageId: record.messageId, error: String(error) }));
          failures.push({ itemIdentifier: record.messageId });
        }
      }),
    );
    return { batchItemFailures: failures };
  };
}
