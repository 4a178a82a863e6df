import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'list-videos',
  purpose: 'reads a page of the video history',
  area: 'tasks',
  trigger: { kind: 'http', method: 'GET', path: '/videos' },
  access: { callers: ['apiKey', 'session'], capability: 'read' },
  needs: { table: { actions: [...RATE_LIMITED, 'GetItem', 'Query'], query: ['lsi1', 'gsi1'] } },
});
