import { lifecycle } from '#app-context/lifecycle';
import { rateLimiter } from '#app-context/rate-limiter';
import { expiryFor } from '#app-context/retention';
import { imageView } from '#contract/tasks';
import { getTask } from '#domain/tasks/get-task';
import { httpHandler } from '#http/http-handler';
import { pathParameter } from '#http/request';
import { spec } from './get-image.spec';

/** GET /api/v1/images/{image_id}: the task, refreshed from the provider while processing. */
export const handler = httpHandler(
  spec,
  async ({ event, principal }) => {
    // The retention is read beside the task: no extra round.
    const [task, expiry] = await Promise.all([getTask(lifecycle(), principal.partitionId, 'image', pathParameter(event, 'image_id')), expiryFor(principal.partitionId)]);
    return imageView(task, expiry(task));
  },
  { rateLimiter },
);
