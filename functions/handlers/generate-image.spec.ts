import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED, endsTasks, startsTasks } from '#spec/needs';

export const spec = defineFunction({
  name: 'generate-image',
  purpose: 'charges, creates and submits an image task',
  area: 'tasks',
  trigger: { kind: 'http', method: 'POST', path: '/generate-image', jsonBody: true },
  access: { callers: ['apiKey', 'session'], capability: 'generate' },
  needs: startsTasks(endsTasks({ table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] } })),
});
