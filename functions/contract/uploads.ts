import * as z from 'zod';
import { IMAGE_EXTENSIONS, MAX_UPLOAD_BYTES, type ImageContentType } from '#domain/catalogue/image-type';
import type { DirectUpload, StoredImage } from '#domain/uploads/uploads';
import { successEnvelopeSchema } from './envelope';
import { timestamp } from './fields';

/** Reference image uploads: the stored image and the presigned direct upload. */

const IMAGE_CONTENT_TYPES = Object.keys(IMAGE_EXTENSIONS) as [ImageContentType, ...ImageContentType[]];

export const uploadedImage = z
  .object({
    url: z.url().meta({
      description:
        'Public, unguessable URL of the stored image (https; http on the local stack). Pass it as `image_url` to `POST /generate` or in `images` of `POST /generate-image`.',
    }),
    content_type: z.enum(IMAGE_CONTENT_TYPES).meta({ description: "Read from the file's bytes, not its name." }),
    size: z.number().int().min(1).max(MAX_UPLOAD_BYTES).meta({ description: 'Bytes.' }),
  })
  .meta({ id: 'UploadedImage' });

export const directUpload = z
  .object({
    upload_id: z.string().regex(/^upl_[0-9a-f]{32}$/).meta({ description: 'Use it in `POST /uploads/{upload_id}/complete`.' }),
    upload_url: z.url().meta({ description: 'POST a multipart form here: every field of `fields`, then the file as the last field, named `file`.' }),
    fields: z.record(z.string(), z.string()).meta({ description: 'Form fields of the presigned POST, sent as they are.' }),
    max_bytes: z.number().int().meta({ description: `Largest accepted file (${MAX_UPLOAD_BYTES} bytes, 10 MiB).` }),
    expires_at: timestamp('The form is refused after this time (15 minutes).'),
  })
  .meta({ id: 'DirectUpload', description: 'A presigned direct upload to storage, for files of any allowed size.' });

export const uploadedImageResponse = successEnvelopeSchema('UploadedImageResponse', uploadedImage);
export const directUploadResponse = successEnvelopeSchema('DirectUploadResponse', directUpload);

export const uploadedImageView = (image: StoredImage): z.infer<typeof uploadedImage> => ({
  url: image.url,
  content_type: image.contentType,
  size: image.size,
});

export const directUploadView = (upload: DirectUpload): z.infer<typeof directUpload> => ({
  upload_id: upload.uploadId,
  upload_url: upload.uploadUrl,
  fields: upload.fields,
  max_bytes: upload.maxBytes,
  expires_at: upload.expiresAt,
});
