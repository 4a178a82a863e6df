import { rateLimiter } from '#app-context/rate-limiter';
import { expiryFor } from '#app-context/retention';
import { stores } from '#app-context/stores';
import { imagePageView, taskListQuery } from '#contract/tasks';
import { listTasks } from '#domain/tasks/list-tasks';
import { httpHandler } from '#http/http-handler';
import { spec } from './list-images.spec';

/** GET /api/v1/images: the caller's image history, newest first. */
export const handler = httpHandler(
  spec,
  async ({ event, principal }) => {
    const { page, limit, end_user: endUser } = taskListQuery.parse(event.queryStringParameters ?? {});
    const [tasks, expiry] = await Promise.all([listTasks(stores(), principal.partitionId, 'image', page, limit, new Date(), endUser), expiryFor(principal.partitionId)]);
    return imagePageView(tasks, expiry);
  },
  { rateLimiter },
);
