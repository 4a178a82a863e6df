import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED, endsTasks } from '#spec/needs';

export const spec = defineFunction({
  name: 'delete-image',
  purpose: "deletes a final image task's stored outputs; the task stays with output_deleted_at",
  area: 'tasks',
  trigger: { kind: 'http', method: 'DELETE', path: '/images/{image_id}' },
  access: { callers: ['apiKey', 'session'], capability: 'generate' },
  // endsTasks: a completion whose events were not published yet is announced before it moves on.
  needs: endsTasks({ table: { actions: [...RATE_LIMITED, 'GetItem', 'UpdateItem'] }, media: { delete: ['images/'] } }),
});
