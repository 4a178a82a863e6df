import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'upload',
  purpose: 'stores an uploaded reference image',
  area: 'tasks',
  trigger: { kind: 'http', method: 'POST', path: '/upload' },
  access: { callers: ['apiKey', 'session'], capability: 'generate' },
  needs: { table: { actions: [...RATE_LIMITED] }, media: { write: ['uploads/'] } },
});
