import { lifecycle } from '#app-context/lifecycle';
import { rateLimiter } from '#app-context/rate-limiter';
import { parseVideoStart } from '#contract/generate-video';
import { videoView } from '#contract/tasks';
import { spendingKeyOf } from '#domain/accounts/spending-key';
import { startTask } from '#domain/tasks/start-task';
import { httpHandler } from '#http/http-handler';
import { idempotencyKeyOf } from '#http/request';
import { spec } from './generate.spec';

/** POST /api/v1/generate: charge, create and submit a video task. */
export const handler = httpHandler(
  spec,
  async ({ event, principal, body }) => {
    const request = parseVideoStart(body);
    return videoView(await startTask(lifecycle(), principal.partitionId, request, idempotencyKeyOf(event), spendingKeyOf(principal)));
  },
  { rateLimiter },
);
