import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'list-events',
  purpose: "reads a page of the caller's events feed",
  area: 'events',
  trigger: { kind: 'http', method: 'GET', path: '/events' },
  access: { callers: ['apiKey', 'session'], capability: 'read' },
  needs: { table: { actions: [...RATE_LIMITED, 'GetItem', 'Query'], query: ['lsi1'] } },
});
