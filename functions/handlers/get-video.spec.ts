import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED, endsTasks } from '#spec/needs';

export const spec = defineFunction({
  name: 'get-video',
  purpose: 'reads a video task and refreshes it from the provider',
  area: 'tasks',
  trigger: { kind: 'http', method: 'GET', path: '/videos/{video_id}' },
  access: { callers: ['apiKey', 'session'], capability: 'read' },
  needs: endsTasks({ table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] }, providers: true, invokes: ['copy-output'] }),
});
