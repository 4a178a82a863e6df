import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'list-models',
  purpose: 'lists the models and their prices',
  area: 'tasks',
  trigger: { kind: 'http', method: 'GET', path: '/models' },
  access: { callers: ['apiKey', 'session'], capability: 'read' },
  needs: { table: { actions: [...RATE_LIMITED] } },
});
