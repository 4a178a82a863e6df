import * as z from 'zod';
import { deliveryDeps } from '#app-context/deliveries';
import { deliverOutputs } from '#domain/tasks/delivery';
import { queueHandler } from '#queue/queue-handler';

const deliveryMessage = z.object({ accountId: z.string(), taskId: z.string() });

/** Consumer of the output delivery queue (SQS on AWS, the in-process queue locally): one attempt per message. */
export const handler = queueHandler('deliver-output', deliveryMessage, (message) => deliverOutputs(deliveryDeps(), message));
