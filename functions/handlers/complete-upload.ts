import { rateLimiter } from '#app-context/rate-limiter';
import { directUploads } from '#app-context/uploads';
import { uploadedImageView } from '#contract/uploads';
import { completeDirectUpload } from '#domain/uploads/uploads';
import { httpHandler } from '#http/http-handler';
import { pathParameter } from '#http/request';
import { spec } from './complete-upload.spec';

/** POST /api/v1/uploads/{upload_id}/complete: check a direct upload's bytes and publish it. */
export const handler = httpHandler(
  spec,
  async ({ event, principal }) => uploadedImageView(await completeDirectUpload(directUploads(), principal.partitionId, pathParameter(event, 'upload_id'))),
  { rateLimiter },
);
