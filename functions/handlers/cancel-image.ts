import { lifecycle } from '#app-context/lifecycle';
import { rateLimiter } from '#app-context/rate-limiter';
import { imageView } from '#contract/tasks';
import { cancelTask } from '#domain/tasks/cancel-task';
import { httpHandler } from '#http/http-handler';
import { pathParameter } from '#http/request';
import { spec } from './cancel-image.spec';

/** POST /api/v1/images/{image_id}/cancel: fail and refund a processing task, stop its upstream job. */
export const handler = httpHandler(
  spec,
  async ({ event, principal }) =>
    imageView(await cancelTask(lifecycle(), principal.partitionId, 'image', pathParameter(event, 'image_id'))),
  { rateLimiter },
);
