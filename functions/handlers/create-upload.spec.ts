import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'create-upload',
  purpose: 'presigns an upload into incoming/',
  area: 'tasks',
  trigger: { kind: 'http', method: 'POST', path: '/uploads' },
  access: { callers: ['apiKey', 'session'], capability: 'generate' },
  needs: {
    table: { actions: [...RATE_LIMITED] },
    // A presigned PUT carries the signer's permissions: the function must hold PutObject itself.
    media: { write: ['incoming/'] },
  },
});
