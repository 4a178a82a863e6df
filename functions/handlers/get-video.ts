import { appContext } from '../app-context';
import { getTask } from '../domain/get-task';
import type { VideoTask } from '../domain/task';
import { videoView } from '../domain/task-views';
import { httpHandler } from '../http/http-handler';
import { pathParameter } from '../http/request';

/** GET /api/v1/videos/{video_id}: the task, refreshed from the provider while processing. */
export const handler = httpHandler(async ({ event, principal }) => {
  const task = await getTask(appContext().lifecycle, principal.accountId, 'video', pathParameter(event, 'video_id'));
  return videoView(task as VideoTask);
});
