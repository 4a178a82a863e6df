import { lifecycle } from '#app-context/lifecycle';
import { rateLimiter } from '#app-context/rate-limiter';
import { imageView } from '#contract/tasks';
import { getTask } from '#domain/tasks/get-task';
import { httpHandler } from '#http/http-handler';
import { pathParameter } from '#http/request';

/** GET /api/v1/images/{image_id}: the task, refreshed from the provider while processing. */
export const handler = httpHandler(
  async ({ event, principal }) =>
    imageView(await getTask(lifecycle(), principal.partitionId, 'image', pathParameter(event, 'image_id'))),
  { rateLimiter, access: { scope: 'read' } },
);
