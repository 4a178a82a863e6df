import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'create-webhook',
  purpose: 'registers a webhook endpoint (at most ten per account)',
  area: 'events',
  trigger: { kind: 'http', method: 'POST', path: '/webhooks', jsonBody: true },
  access: { callers: ['apiKey', 'session'], capability: 'webhooks' },
  needs: { table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] } },
});
