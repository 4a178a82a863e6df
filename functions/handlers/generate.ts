import { lifecycle } from '#app-context/lifecycle';
import { rateLimiter } from '#app-context/rate-limiter';
import { parseGenerateVideo } from '#contract/generate-video';
import { videoView } from '#contract/tasks';
import { spendingKeyOf } from '#domain/accounts/spending-key';
import { startTask } from '#domain/tasks/start-task';
import { httpHandler } from '#http/http-handler';
import { idempotencyKeyOf } from '#http/request';

/** POST /api/v1/generate: charge, create and submit a video task. */
export const handler = httpHandler(
  async ({ event, principal, body }) => {
    const request = { kind: 'video' as const, params: parseGenerateVideo(body) };
    return videoView(await startTask(lifecycle(), principal.partitionId, request, idempotencyKeyOf(event), spendingKeyOf(principal)));
  },
  { rateLimiter, jsonBody: true, access: { scope: 'generate' } },
);
