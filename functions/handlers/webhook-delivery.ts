import * as z from 'zod';
import { webhooks } from '#app-context/webhooks';
import { attemptDelivery } from '#domain/webhooks/deliveries';
import { queueHandler } from '#queue/queue-handler';

const deliveryMessage = z.object({ accountId: z.string(), webhookId: z.string(), eventId: z.string() });

/** Consumer of the delivery queue (SQS on AWS, the in-process queue locally): one attempt per message. */
export const handler = queueHandler('webhook-delivery', deliveryMessage, (message) => attemptDelivery(webhooks(), message));
