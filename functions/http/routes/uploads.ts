import { EXAMPLE_UPLOAD, ok } from '#contract/examples';
import { uploadForm, uploadIdParam } from '#contract/params';
import { directUploadResponse, uploadedImageResponse } from '#contract/uploads';
import { MAX_UPLOAD_BYTES } from '#domain/catalogue/image-type';
import type { RouteDoc } from '../route';
import { AUTH, json } from './operation-doc';

/** Uploads: a reference image through the API, or straight to storage with a presigned form. */
export const UPLOAD_DOCS: RouteDoc[] = [
  {
    handler: 'upload',
    doc: {
      operationId: 'uploadImage',
      summary: 'Upload a reference image',
      description:
        "Stores an image and answers its public URL, to pass as `image_url` (image-to-video) or in `images` (image edits). The type is read from the file's bytes. On AWS a request through this endpoint carries at most about 4.5 MB (API Gateway and Lambda limits); use the direct upload (`POST /uploads`) for larger files.",
      tag: 'Uploads',
      request: {
        body: {
          required: true,
          content: {
            'multipart/form-data': {
              schema: uploadForm,
              encoding: { image: { contentType: 'image/jpeg, image/png, image/webp' } },
            },
          },
        },
      },
      success: { description: 'The stored image.', ...json(uploadedImageResponse, ok(EXAMPLE_UPLOAD)) },
      errors: [400, 401, 413, 429, 500],
      errorNotes: {
        400: {
          description: 'Not multipart/form-data, no file part named `image`, more than one file, an empty or too large file, or not a JPEG, PNG or WebP image.',
          example: "image: must be a JPEG, PNG or WebP image (the type is read from the file's content, not its name).",
        },
      },
      curl: `curl -s -X POST "{BASE}/upload" ${AUTH} \\\n  -F image=@cat.png`,
    },
  },
  {
    handler: 'create-upload',
    doc: {
      operationId: 'createDirectUpload',
      summary: 'Start a direct upload (presigned form)',
      description:
        'For files of any allowed size (up to 10 MiB): answers a presigned form. POST every entry of `fields`, then the file as the last field named `file`, to `upload_url` (storage answers there, not this API), then call `POST /uploads/{upload_id}/complete`. The form expires after 15 minutes.',
      tag: 'Uploads',
      success: {
        description: 'The presigned form.',
        ...json(
          directUploadResponse,
          ok({
            upload_id: 'upl_6f1c0b6a3d2e4f5a8b9c0d1e2f3a4b5c',
            upload_url: 'https://vidgen-media.s3.eu-west-1.amazonaws.com/',
            fields: { key: 'incoming/acc_01M7ZMF8J1P87E686TGQYTVN2H/upl_6f1c0b6a3d2e4f5a8b9c0d1e2f3a4b5c', Policy: '…', 'X-Amz-Signature': '…' },
            max_bytes: MAX_UPLOAD_BYTES,
            expires_at: '2026-11-21T17:15:00.000Z',
          }),
        ),
      },
      errors: [401, 413, 429, 500],
      curl: `curl -s -X POST "{BASE}/uploads" ${AUTH}`,
    },
  },
  {
    handler: 'complete-upload',
    doc: {
      operationId: 'completeDirectUpload',
      summary: 'Finish a direct upload',
      description:
        "Checks the uploaded file (type from its bytes, 1 byte to 10 MiB) and publishes it. A file that is not a JPEG, PNG or WebP image is deleted and answered 400. Only the account that started the upload can complete it.",
      tag: 'Uploads',
      request: { params: uploadIdParam },
      success: { description: 'The stored image.', ...json(uploadedImageResponse, ok(EXAMPLE_UPLOAD)) },
      errors: [400, 401, 404, 413, 429, 500],
      errorNotes: {
        400: {
          description: 'The uploaded file is empty, larger than 10 MiB, or not a JPEG, PNG or WebP image (it was deleted).',
          example: 'image: the file is larger than 10 MiB (10485760 bytes).',
        },
        404: {
          description: 'No file was received for this upload id (or it belongs to another account).',
          example: 'No upload "upl_6f1c0b6a3d2e4f5a8b9c0d1e2f3a4b5c" was received. POST the file to its upload_url first.',
        },
      },
      curl: `curl -s -X POST "{BASE}/uploads/$UPLOAD_ID/complete" ${AUTH}`,
    },
  },
];
