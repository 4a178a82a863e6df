import { appContext } from '../app-context';
import { startTask } from '../domain/start-task';
import { videoView } from '../domain/task-views';
import type { VideoTask } from '../domain/task';
import { httpHandler } from '../http/http-handler';
import { idempotencyKeyOf } from '../http/request';
import { parseGenerateVideo } from '../contract/generate-video';

/** POST /api/v1/generate: charge, create and submit a video task. */
export const handler = httpHandler(
  async ({ event, principal, body }) => {
    const params = parseGenerateVideo(body);
    const task = await startTask(
      appContext().lifecycle,
      principal.accountId,
      { kind: 'video', params },
      idempotencyKeyOf(event),
    );
    return videoView(task as VideoTask);
  },
  { jsonBody: true },
);
