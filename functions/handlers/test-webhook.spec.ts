import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'test-webhook',
  purpose: 'sends a test event to one webhook endpoint',
  area: 'events',
  trigger: { kind: 'http', method: 'POST', path: '/webhooks/{webhook_id}/test' },
  access: { callers: ['apiKey', 'session'], capability: 'webhooks' },
  needs: { table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] }, queues: ['webhook-deliveries'] },
});
