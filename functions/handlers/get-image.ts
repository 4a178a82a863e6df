import { lifecycle } from '#app-context/lifecycle';
import { rateLimiter } from '#app-context/rate-limiter';
import { imageView } from '#contract/tasks';
import { getTask } from '#domain/tasks/get-task';
import { httpHandler } from '#http/http-handler';
import { pathParameter } from '#http/request';
import { spec } from './get-image.spec';

/** GET /api/v1/images/{image_id}: the task, refreshed from the provider while processing. */
export const handler = httpHandler(
  spec,
  async ({ event, principal }) =>
    imageView(await getTask(lifecycle(), principal.partitionId, 'image', pathParameter(event, 'image_id'))),
  { rateLimiter },
);
