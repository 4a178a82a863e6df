import * as z from 'zod';
import { MAX_IMAGE_SIDE } from '#domain/catalogue/image-size';
import { MAX_UPLOAD_BYTES } from '#domain/catalogue/image-type';

/** Request headers, path parameters and the upload form, as the API reference describes them. */

export const idempotencyHeader = z.object({
  'Idempotency-Key': z
    .string()
    .min(1)
    .max(255)
    .optional()
    .meta({
      description:
        'Makes retries safe (1 to 255 characters). The same key with the same body within 24 hours returns the first answer and charges nothing more; with a different body: 409 `idempotency_conflict`.',
      examples: ['3b7e2c9a-5f1d-4e8b-9a6c-0d2f4e6a8b1c'],
    }),
});

export const videoIdParam = z.object({
  video_id: z.string().meta({ description: 'The `video_id` returned by `POST /generate`.', examples: ['vid_01M7ZNHRE3YZJA4Y3XQS4DQDGQ'] }),
});
export const imageIdParam = z.object({
  image_id: z.string().meta({ description: 'The `image_id` returned by `POST /generate-image`.', examples: ['img_01M7ZP0E1WQ4R5N8B2C6D7F9GH'] }),
});
export const uploadIdParam = z.object({
  upload_id: z.string().meta({ description: 'The `upload_id` returned by `POST /uploads`.', examples: ['upl_6f1c0b6a3d2e4f5a8b9c0d1e2f3a4b5c'] }),
});
export const uploadForm = z
  .object({
  image: z.string().meta({
    description: `The image file: JPEG, PNG or WebP (decided from its bytes), 1 byte to ${MAX_UPLOAD_BYTES} bytes (10 MiB), at most ${MAX_IMAGE_SIDE} pixels per side (read from its header). Exactly one file part.`,
    format: 'binary',
    contentMediaType: 'application/octet-stream',
  }),
  })
  .meta({ id: 'UploadImageForm' });

export const webhookIdParam = z.object({
  webhook_id: z.string().meta({ description: 'The `webhook_id` returned by `POST /webhooks`.', examples: ['whk_01M7ZQ4XW6S3D2F1G0H9J8K7L6'] }),
});

/** The provider callback route's path parameters: which provider, and whose task. */
export const providerCallbackParams = z.object({
  provider: z.string().meta({ description: 'The provider that ran the job.', examples: ['replicate'] }),
  account_id: z.string().meta({ description: 'The account the task belongs to.', examples: ['acc_01M7ZNHRE3YZJA4Y3XQS4DQDGQ'] }),
  task_id: z.string().meta({ description: 'The task the job is for.', examples: ['vid_01M7ZNHRE3YZJA4Y3XQS4DQDGQ'] }),
});

/** The callback route's query: the token that binds the URL to its task. */
export const providerCallbackQuery = z.object({
  token: z.string().optional().meta({
    description:
      'Binds the URL to its task: set by us in the URL we give the provider; a callback whose token is not its task\'s is refused (401).',
  }),
});

/** Where a provider reports a task's job: `{base}/provider-callbacks/{provider}/{account_id}/{task_id}?token=...`. */
export function providerCallbackUrl(baseUrl: string, provider: string, accountId: string, taskId: string, token: string): string {
  const segments = [provider, accountId, taskId].map(encodeURIComponent).join('/');
  return `${baseUrl.replace(/\/+$/, '')}/provider-callbacks/${segments}?token=${encodeURIComponent(token)}`;
}

/** PATCH and DELETE /keys/{key_id}. */
export const keyIdParam = z.object({
  key_id: z.string().meta({ description: 'The `key_id` from `GET /keys` or `POST /keys`.', examples: ['key_3f9a1c0d2b7e4a6f8c1d0e2f'] }),
});
