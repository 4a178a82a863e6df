import { lifecycle } from '#app-context/lifecycle';
import { rateLimiter } from '#app-context/rate-limiter';
import { parseImageStart } from '#contract/generate-image';
import { imageView } from '#contract/tasks';
import { spendingKeyOf } from '#domain/accounts/spending-key';
import { startTask } from '#domain/tasks/start-task';
import { httpHandler } from '#http/http-handler';
import { idempotencyKeyOf } from '#http/request';
import { spec } from './generate-image.spec';

/** POST /api/v1/generate-image: charge, create and submit an image task (paid access only). */
export const handler = httpHandler(
  spec,
  async ({ event, principal, body }) => {
    const request = parseImageStart(body);
    return imageView(await startTask(lifecycle(), principal.partitionId, request, idempotencyKeyOf(event), spendingKeyOf(principal)));
  },
  { rateLimiter },
);
