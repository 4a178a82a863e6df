import { appContext } from '../app-context';
import { startTask } from '../domain/start-task';
import type { ImageTask } from '../domain/task';
import { imageView } from '../domain/task-views';
import { httpHandler } from '../http/http-handler';
import { idempotencyKeyOf } from '../http/request';
import { parseGenerateImage } from '../contract/generate-image';

/** POST /api/v1/generate-image: charge, create and submit an image task (paid access only). */
export const handler = httpHandler(
  async ({ event, principal, body }) => {
    const params = parseGenerateImage(body);
    const task = await startTask(
      appContext().lifecycle,
      principal.accountId,
      { kind: 'image', params },
      idempotencyKeyOf(event),
    );
    return imageView(task as ImageTask);
  },
  { jsonBody: true },
);
