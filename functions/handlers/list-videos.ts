import { rateLimiter } from '#app-context/rate-limiter';
import { expiryFor } from '#app-context/retention';
import { stores } from '#app-context/stores';
import { taskListQuery, videoPageView } from '#contract/tasks';
import { listTasks } from '#domain/tasks/list-tasks';
import { httpHandler } from '#http/http-handler';
import { spec } from './list-videos.spec';

/** GET /api/v1/videos: the caller's video history, newest first. */
export const handler = httpHandler(
  spec,
  async ({ event, principal }) => {
    const { page, limit, end_user: endUser } = taskListQuery.parse(event.queryStringParameters ?? {});
    const [tasks, expiry] = await Promise.all([listTasks(stores(), principal.partitionId, 'video', page, limit, new Date(), endUser), expiryFor(principal.partitionId)]);
    return videoPageView(tasks, expiry);
  },
  { rateLimiter },
);
