import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { ZodType } from 'zod';
import { logger } from '#observability/logger';
import { observe } from '#observability/middleware';

/**
 * A Lambda handler for an SQS queue (and the local in-process queue, which sends the same
 * events): each record's body is parsed with `schema` and processed on its own, by Powertools'
 * batch processor; the records that throw are reported as batch item failures, so only they are
 * delivered again. A body that does not parse can never succeed: it is logged and dropped rather
 * than retried.
 */
export function queueHandler<T>(name: string, schema: ZodType<T>, process: (message: T, receiveCount: number) => Promise<void>) {
  const processRecord = async (record: SQSRecord): Promise<void> => {
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
      throw error;
    }
  };
  return observe(async (event: SQSEvent): Promise<SQSBatchResponse> => {
    // One processor per batch: it keeps the batch's state on itself, and the local stack may run
    // the same handler on two batches at once. A batch that fails whole is reported record by
    // record like any other, not thrown: the same retry either way, without an "invocation failed".
    const processor = new BatchProcessor(EventType.SQS);
    return processPartialResponse(event, processRecord, processor, { throwOnFullBatchFailure: false });
  });
}
