import { rateLimiter } from '#app-context/rate-limiter';
import { directUploads } from '#app-context/uploads';
import { directUploadView } from '#contract/uploads';
import { createDirectUpload } from '#domain/uploads/uploads';
import { httpHandler } from '#http/http-handler';
import { spec } from './create-upload.spec';

/** POST /api/v1/uploads: a presigned direct upload to storage, for files of any allowed size. */
export const handler = httpHandler(
  spec,
  async ({ principal }) => {
    const { storage, clock } = directUploads();
    return directUploadView(await createDirectUpload(storage, principal.partitionId, clock()));
  },
  { rateLimiter },
);
