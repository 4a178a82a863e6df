import { lifecycle } from '#app-context/lifecycle';
import { rateLimiter } from '#app-context/rate-limiter';
import { expiryFor } from '#app-context/retention';
import { videoView } from '#contract/tasks';
import { getTask } from '#domain/tasks/get-task';
import { httpHandler } from '#http/http-handler';
import { pathParameter } from '#http/request';
import { spec } from './get-video.spec';

/** GET /api/v1/videos/{video_id}: the task, refreshed from the provider while processing. */
export const handler = httpHandler(
  spec,
  async ({ event, principal }) => {
    // The retention is read beside the task: no extra round.
    const [task, expiry] = await Promise.all([getTask(lifecycle(), principal.partitionId, 'video', pathParameter(event, 'video_id')), expiryFor(principal.partitionId)]);
    return videoView(task, expiry(task));
  },
  { rateLimiter },
);
