import { appContext } from '../app-context';
import { listTasks } from '../domain/list-tasks';
import type { ImageTask } from '../domain/task';
import { imageView } from '../domain/task-views';
import { httpHandler } from '../http/http-handler';
import { parsePagination } from '../http/request';

/** GET /api/v1/images: the caller's image history, newest first. */
export const handler = httpHandler(async ({ event, principal }) => {
  const { page, limit } = parsePagination(event);
  const result = await listTasks(appContext().tasks, principal.accountId, 'image', page, limit);
  return { images: result.tasks.map((task) => imageView(task as ImageTask)), pagination: result.pagination };
});
