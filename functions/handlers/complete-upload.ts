import { uploadStorage } from '#app-context/media';
import { rateLimiter } from '#app-context/rate-limiter';
import { stores } from '#app-context/stores';
import { uploadedImageView } from '#contract/uploads';
import { completeDirectUpload } from '#domain/uploads/uploads';
import { httpHandler } from '#http/http-handler';
import { pathParameter } from '#http/request';

/** POST /api/v1/uploads/{upload_id}/complete: check a direct upload's bytes and publish it. */
export const handler = httpHandler(
  async ({ event, principal }) => {
    const deps = { storage: uploadStorage(), publications: stores().uploadPublications };
    return uploadedImageView(await completeDirectUpload(deps, principal.partitionId, pathParameter(event, 'upload_id')));
  },
  { rateLimiter, access: { scope: 'generate' } },
);
