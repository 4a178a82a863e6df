import { appContext } from '../app-context';
import { getTask } from '../domain/get-task';
import type { ImageTask } from '../domain/task';
import { imageView } from '../domain/task-views';
import { httpHandler } from '../http/http-handler';
import { pathParameter } from '../http/request';

/** GET /api/v1/images/{image_id}: the task, refreshed from the provider while processing. */
export const handler = httpHandler(async ({ event, principal }) => {
  const task = await getTask(appContext().lifecycle, principal.accountId, 'image', pathParameter(event, 'image_id'));
  return imageView(task as ImageTask);
});
