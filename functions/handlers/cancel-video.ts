import { lifecycle } from '#app-context/lifecycle';
import { rateLimiter } from '#app-context/rate-limiter';
import { videoView } from '#contract/tasks';
import { cancelTask } from '#domain/tasks/cancel-task';
import { httpHandler } from '#http/http-handler';
import { pathParameter } from '#http/request';
import { spec } from './cancel-video.spec';

/** POST /api/v1/videos/{video_id}/cancel: fail and refund a processing task, stop its upstream job. */
export const handler = httpHandler(
  spec,
  async ({ event, principal }) =>
    videoView(await cancelTask(lifecycle(), principal.partitionId, 'video', pathParameter(event, 'video_id'))),
  { rateLimiter },
);
