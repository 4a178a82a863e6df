import { REGION, WEBHOOK_DELIVERY } from './service';
import { readGroup, readSetting, secondsList, setting, text, type Env } from './setting';

/*
 * Output deliveries' settings, apart from service.ts so the functions that never deliver (the
 * authorizer above all) do not bundle them.
 */

/** Delivering outputs to customers' storage (domain/tasks/delivery.ts). */
export const OUTPUT_DELIVERY = {
  queueUrl: setting({ variable: 'OUTPUT_DELIVERY_QUEUE_URL', kind: text, doc: "The SQS queue of output deliveries; unset: an in-process queue (the local stack and tests only)." }),
  retrySchedule: setting({
    variable: 'DELIVERY_RETRY_SCHEDULE',
    kind: secondsList,
    // 4,720 s of waits (79 min), 11 attempts: "at least an hour" (CONTRACT.md).
    default: [10, 30, 60, 120, 300, 600, 900, 900, 900, 900],
    doc: 'Seconds before each retry of a failed output delivery, in order; after the last, the delivery is failed.',
  }),
};

/** The output delivery queue and retry schedule (app-context/deliveries.ts). */
export const outputDeliveryConfig = (env: Env = process.env) => ({ region: readSetting(REGION, env), ...readGroup(OUTPUT_DELIVERY, env) });

/**
 * Whether output destinations may be loopback addresses: the webhooks' setting (the local stack
 * sets it), read alone by the functions that check or make deliveries.
 */
export const destinationLoopback = (env: Env = process.env): boolean => readSetting(WEBHOOK_DELIVERY.allowLoopback, env);

