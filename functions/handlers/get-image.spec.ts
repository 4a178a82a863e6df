import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED, endsTasks } from '#spec/needs';

export const spec = defineFunction({
  name: 'get-image',
  purpose: 'reads an image task and refreshes it from the provider',
  area: 'tasks',
  trigger: { kind: 'http', method: 'GET', path: '/images/{image_id}' },
  access: { callers: ['apiKey', 'session'], capability: 'read' },
  needs: endsTasks({ table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] }, providers: true, invokes: ['copy-output'] }),
});
