import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'retry-delivery',
  purpose: 'sends an event to a webhook endpoint again',
  area: 'events',
  trigger: { kind: 'http', method: 'POST', path: '/webhooks/{webhook_id}/deliveries/{event_id}/retry' },
  access: { callers: ['apiKey', 'session'], capability: 'webhooks' },
  needs: {
    // The delivery reopened (Update) or, for an event never sent to the endpoint, created
    // (GetItem of the counter, TransactWriteItems [Update endpoint, Put delivery]).
    table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] },
    queues: ['webhook-deliveries'],
  },
});
