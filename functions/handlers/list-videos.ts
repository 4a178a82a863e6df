import { appContext } from '../app-context';
import { listTasks } from '../domain/list-tasks';
import type { VideoTask } from '../domain/task';
import { videoView } from '../domain/task-views';
import { httpHandler } from '../http/http-handler';
import { parsePagination } from '../http/request';

/** GET /api/v1/videos: the caller's video history, newest first. */
export const handler = httpHandler(async ({ event, principal }) => {
  const { page, limit } = parsePagination(event);
  const result = await listTasks(appContext().tasks, principal.accountId, 'video', page, limit);
  return { videos: result.tasks.map((task) => videoView(task as VideoTask)), pagination: result.pagination };
});
