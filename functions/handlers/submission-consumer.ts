import * as z from 'zod';
import { lifecycle } from '#app-context/lifecycle';
import { submitQueued } from '#domain/tasks/submission';
import { queueHandler } from '#queue/queue-handler';

const submissionMessage = z.object({ accountId: z.string(), taskId: z.string() });

/** Consumer of the submission queue (SQS on AWS, the in-process queue locally): one create per message, at the budget's pace. */
export const handler = queueHandler('submission-consumer', submissionMessage, (message) => submitQueued(lifecycle(), message));
