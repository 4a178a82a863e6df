import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'list-deliveries',
  purpose: "reads a page of an endpoint's deliveries",
  area: 'events',
  trigger: { kind: 'http', method: 'GET', path: '/webhooks/{webhook_id}/deliveries' },
  access: { callers: ['apiKey', 'session'], capability: 'webhooks' },
  needs: { table: { actions: [...RATE_LIMITED, 'GetItem', 'Query'], query: ['lsi1'] } },
});
