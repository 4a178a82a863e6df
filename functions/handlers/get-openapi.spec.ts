import { defineFunction } from '#spec/function-spec';

export const spec = defineFunction({
  name: 'get-openapi',
  purpose: 'serves the OpenAPI document',
  area: 'reference',
  trigger: { kind: 'http', method: 'GET', path: '/openapi.json' },
  access: { callers: ['public'], checks: 'nothing' },
  needs: {},
});
