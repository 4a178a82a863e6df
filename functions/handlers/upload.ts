import { uploadStorage } from '#app-context/media';
import { rateLimiter } from '#app-context/rate-limiter';
import { uploadedImageView } from '#contract/uploads';
import { MAX_UPLOAD_BYTES } from '#domain/catalogue/image-type';
import { storeUpload } from '#domain/uploads/uploads';
import { httpHandler } from '#http/http-handler';
import { parseSingleFileUpload } from '#http/multipart';
import { spec } from './upload.spec';

/** POST /api/v1/upload: one `image` file part (JPEG, PNG or WebP, at most 10 MiB) -> public URL. */
export const handler = httpHandler(
  spec,
  async ({ event, principal }) => {
    const file = await parseSingleFileUpload(event, { field: 'image', maxBytes: MAX_UPLOAD_BYTES });
    return uploadedImageView(await storeUpload(uploadStorage(), principal.partitionId, file.bytes));
  },
  { rateLimiter },
);
