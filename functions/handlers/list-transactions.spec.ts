import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'list-transactions',
  purpose: 'reads a page of the caller ledger (a test key opens its test balance on first use)',
  area: 'account',
  trigger: { kind: 'http', method: 'GET', path: '/credits/transactions' },
  access: { callers: ['apiKey', 'session'], capability: 'read' },
  needs: { table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem', 'Query'], query: ['lsi1'] } },
});
