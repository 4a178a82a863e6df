/** The SQS queues of the event pipeline (each with a DLQ). */
export type QueueName = 'webhook-deliveries' | 'submissions' | 'output-deliveries';

/** The environment variable that gives a function a queue's URL (functions/config/ reads it). */
export const QUEUE_URL_VARIABLES = {
  'webhook-deliveries': 'WEBHOOK_QUEUE_URL',
  submissions: 'SUBMISSION_QUEUE_URL',
  'output-deliveries': 'OUTPUT_DELIVERY_QUEUE_URL',
} as const satisfies Record<QueueName, string>;
