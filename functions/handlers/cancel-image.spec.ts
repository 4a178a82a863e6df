import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED, endsTasks } from '#spec/needs';

export const spec = defineFunction({
  name: 'cancel-image',
  purpose: 'cancels an image task, refunds it and stops the upstream job',
  area: 'tasks',
  trigger: { kind: 'http', method: 'POST', path: '/images/{image_id}/cancel' },
  access: { callers: ['apiKey', 'session'], capability: 'generate' },
  needs: endsTasks({ table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] }, providers: true }),
});
