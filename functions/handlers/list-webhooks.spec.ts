import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'list-webhooks',
  purpose: "lists the caller's webhook endpoints",
  area: 'events',
  trigger: { kind: 'http', method: 'GET', path: '/webhooks' },
  access: { callers: ['apiKey', 'session'], capability: 'webhooks' },
  needs: { table: { actions: [...RATE_LIMITED, 'Query'], query: ['lsi1'] } },
});
