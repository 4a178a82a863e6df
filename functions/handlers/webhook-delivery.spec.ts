import { defineFunction } from '#spec/function-spec';

export const spec = defineFunction({
  name: 'webhook-delivery',
  purpose: 'makes one attempt of a webhook delivery and schedules the next',
  area: 'events',
  trigger: { kind: 'queue', queue: 'webhook-deliveries', batchSize: 10, maxConcurrency: 10 },
  access: { callers: ['aws'] },
  needs: { table: { actions: ['GetItem', 'UpdateItem'] }, queues: ['webhook-deliveries'] },
  // One delivery attempt waits at most 10 s for the customer's endpoint.
  sizing: { timeoutSeconds: 30 },
});
