import { defineFunction } from '#spec/function-spec';

export const spec = defineFunction({
  name: 'get-docs',
  purpose: 'serves the API reference page',
  area: 'reference',
  trigger: { kind: 'http', method: 'GET', path: '/docs' },
  access: { callers: ['public'], checks: 'nothing' },
  needs: {},
});
