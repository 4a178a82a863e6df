import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'get-usage',
  purpose: "reads the caller's usage over a range from the roll-ups, grouped (JSON or CSV)",
  area: 'account',
  trigger: { kind: 'http', method: 'GET', path: '/usage' },
  access: { callers: ['apiKey', 'session'], capability: 'read' },
  needs: { table: { actions: [...RATE_LIMITED, 'Query'], query: ['table'] } },
});
