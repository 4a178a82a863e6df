import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'delete-webhook',
  purpose: 'deletes a webhook endpoint',
  area: 'events',
  trigger: { kind: 'http', method: 'DELETE', path: '/webhooks/{webhook_id}' },
  access: { callers: ['apiKey', 'session'], capability: 'webhooks' },
  // GetItem: the endpoint's URL for its audit entry; PutItem: the entry.
  needs: { table: { actions: [...RATE_LIMITED, 'GetItem', 'DeleteItem', 'PutItem'] } },
});
