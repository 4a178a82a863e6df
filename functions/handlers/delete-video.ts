import { outputDeletion } from '#app-context/output-deletion';
import { rateLimiter } from '#app-context/rate-limiter';
import { videoView } from '#contract/tasks';
import { deleteTaskOutputs } from '#domain/tasks/output-deletion';
import { httpHandler } from '#http/http-handler';
import { pathParameter } from '#http/request';
import { spec } from './delete-video.spec';

/** DELETE /api/v1/videos/{video_id}: a final task's stored outputs leave our storage; the task stays, with output_deleted_at. */
export const handler = httpHandler(
  spec,
  async ({ event, principal }) =>
    videoView(await deleteTaskOutputs(outputDeletion(), principal.partitionId, 'video', pathParameter(event, 'video_id'))),
  { rateLimiter },
);
