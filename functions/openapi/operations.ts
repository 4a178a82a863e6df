import type { ResponseConfig, RouteConfig } from '@asteasolutions/zod-to-openapi';
import * as z from 'zod';
import { MAX_UPLOAD_BYTES } from '../domain/image-type';
import type { ErrorCode } from '../http/envelope';
import { GATEWAY_RESPONSES } from '../http/gateway-responses';
import { paginationQuery } from '../http/request';
import { API_PREFIX } from '../http/routes';
import { generateImageBody } from '../contract/generate-image';
import { generateVideoBody } from '../contract/generate-video';
import { RENDERER_ASSET } from './renderer';
import {
  creditsResponse,
  directUploadResponse,
  errorEnvelopeWith,
  imagePageResponse,
  imageTaskResponse,
  uploadedImageResponse,
  videoPageResponse,
  videoTaskResponse,
} from './schemas';

/**
 * Every operation of the API, as the OpenAPI document describes it. Keyed like the route table
 * (`METHOD /api/v1/...`); a test checks that the two list the same routes. Request schemas are
 * the handlers' own zod schemas; `document.ts` adds the prose around them.
 */

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 429 | 500 | 502;

/** CONTRACT.md: the code(s) each status carries, and an example message. */
export const ERROR_STATUSES: Record<ErrorStatus, { codes: [ErrorCode, ...ErrorCode[]]; description: string; example: string }> = {
  400: {
    codes: ['validation_error'],
    description: 'A parameter is missing or invalid; the message names each field and the allowed values.',
    example: 'duration: must be at most 12 seconds',
  },
  401: {
    codes: ['unauthorized'],
    description: 'The API key is missing, invalid or revoked. Answered before the rate limit: no X-RateLimit-* headers.',
    example: GATEWAY_RESPONSES.unauthorized.body.error!.message,
  },
  403: {
    codes: ['insufficient_credits', 'paid_access_required'],
    description:
      '`paid_access_required`: the model or endpoint needs paid access and an active subscription (checked first). `insufficient_credits`: the balance is below the price. Nothing was charged.',
    example: 'This request costs 38 credits; the account has 10.',
  },
  404: {
    codes: ['not_found'],
    description: 'No such id for this account (ids of other accounts are answered the same way).',
    example: 'No video with id "vid_01M7ZNHRE3YZJA4Y3XQS4DQDGQ".',
  },
  409: {
    codes: ['idempotency_conflict'],
    description: 'This Idempotency-Key was used with a different request body within 24 hours.',
    example: 'This Idempotency-Key was already used with a different request. Use a new key for a new request.',
  },
  413: {
    codes: ['payload_too_large'],
    description: 'The request body is larger than the platform accepts; refused before the handler (no X-RateLimit-* headers).',
    example: GATEWAY_RESPONSES.payloadTooLarge.body.error!.message,
  },
  429: {
    codes: ['rate_limit_exceeded'],
    description: 'Over the per-key limit for this one-minute window. Nothing was done or charged; retry after `Retry-After` seconds.',
    example: 'Rate limit exceeded. Retry after 12 seconds.',
  },
  500: {
    codes: ['internal_error'],
    description: 'A failure on our side. Quote the X-Request-Id header if you contact support.',
    example: 'Something went wrong on our side. Quote the X-Request-Id header if you contact support.',
  },
  502: {
    codes: ['upstream_error'],
    description: 'The generation provider refused or failed the submission. The task ended `failed` and its credits were refunded.',
    example: 'The generation provider did not accept the request. Your credits were refunded; please retry.',
  },
};

export interface OperationDoc {
  method: 'GET' | 'POST';
  /** The route table's path, with the /api/v1 prefix and {name} parameters. */
  routePath: string;
  operationId: string;
  summary: string;
  description: string;
  tag: 'Videos' | 'Images' | 'Uploads' | 'Account' | 'Reference';
  /** Public routes (auth: 'none'): no key, no rate limit. */
  public?: true;
  request?: RouteConfig['request'];
  success: ResponseConfig;
  errors: ErrorStatus[];
  /** This operation's wording of an error status, where the general one does not fit. */
  errorNotes?: Partial<Record<ErrorStatus, { description?: string; example?: string }>>;
  /** A runnable shell example; `{BASE}` becomes the server URL. Uses $KEY and the ids named in it. */
  curl: string;
}

const json = (schema: z.ZodType, example?: unknown) => ({
  content: { 'application/json': { schema, ...(example !== undefined && { example }) } },
});

const EXAMPLE_VIDEO = {
  video_id: 'vid_01M7ZNHRE3YZJA4Y3XQS4DQDGQ',
  status: 'processing',
  model: 'vid-1-5-pro',
  generation_type: 'text_to_video',
  prompt: 'a red fox running through snow',
  aspect_ratio: '16:9',
  duration: 5,
  resolution: '720p',
  credits_used: 25,
  created_at: '2026-11-21T17:00:00.000Z',
  updated_at: '2026-11-21T17:00:00.000Z',
};
const EXAMPLE_VIDEO_DONE = {
  ...EXAMPLE_VIDEO,
  status: 'completed',
  video_url: 'https://media.example.com/videos/vid_01M7ZNHRE3YZJA4Y3XQS4DQDGQ.mp4',
  updated_at: '2026-11-21T17:00:41.000Z',
  completed_at: '2026-11-21T17:00:41.000Z',
};
const EXAMPLE_IMAGE = {
  image_id: 'img_01M7ZP0E1WQ4R5N8B2C6D7F9GH',
  status: 'processing',
  model: 'image-2',
  prompt: 'a lighthouse at dusk',
  resolution: '2k',
  aspect_ratio: '16:9',
  output_format: 'webp',
  credits_used: 5,
  created_at: '2026-11-21T17:00:00.000Z',
  updated_at: '2026-11-21T17:00:00.000Z',
};
const EXAMPLE_IMAGE_DONE = {
  ...EXAMPLE_IMAGE,
  status: 'completed',
  image_urls: ['https://media.example.com/images/img_01M7ZP0E1WQ4R5N8B2C6D7F9GH-1.webp'],
  updated_at: '2026-11-21T17:00:12.000Z',
  completed_at: '2026-11-21T17:00:12.000Z',
};
const EXAMPLE_PAGINATION = { page: 1, limit: 20, total: 1, total_pages: 1, has_more: false };
const EXAMPLE_UPLOAD = {
  url: 'https://media.example.com/uploads/6f1c0b6a3d2e4f5a8b9c0d1e2f3a4b5c.png',
  content_type: 'image/png',
  size: 48213,
};
const ok = (data: unknown) => ({ data, error: null });

/** The handlers' request schemas, named as components (`.meta` returns a copy; the originals are untouched). */
const generateVideoRequest = generateVideoBody.meta({ id: 'GenerateVideoRequest' });
const generateImageRequest = generateImageBody.meta({ id: 'GenerateImageRequest' });

const idempotencyHeader = z.object({
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

const videoIdParam = z.object({
  video_id: z.string().meta({ description: 'The `video_id` returned by `POST /generate`.', examples: ['vid_01M7ZNHRE3YZJA4Y3XQS4DQDGQ'] }),
});
const imageIdParam = z.object({
  image_id: z.string().meta({ description: 'The `image_id` returned by `POST /generate-image`.', examples: ['img_01M7ZP0E1WQ4R5N8B2C6D7F9GH'] }),
});
const uploadIdParam = z.object({
  upload_id: z.string().meta({ description: 'The `upload_id` returned by `POST /uploads`.', examples: ['upl_6f1c0b6a3d2e4f5a8b9c0d1e2f3a4b5c'] }),
});
const assetParam = z.object({
  file: z.string().meta({ description: 'A file name the docs page refers to.', examples: [RENDERER_ASSET] }),
});

const uploadForm = z
  .object({
  image: z.string().meta({
    description: `The image file: JPEG, PNG or WebP (decided from its bytes), 1 byte to ${MAX_UPLOAD_BYTES} bytes (10 MiB). Exactly one file part.`,
    format: 'binary',
    contentMediaType: 'application/octet-stream',
  }),
  })
  .meta({ id: 'UploadImageForm' });

const AUTH = '\\\n  -H "Authorization: Bearer $KEY"';

export const OPERATIONS: readonly OperationDoc[] = [
  {
    method: 'POST',
    routePath: `${API_PREFIX}/generate`,
    operationId: 'generateVideo',
    summary: 'Start a video generation task',
    description:
      'Starts a text-to-video task, or image-to-video with `image_url` (upload a local file first with `POST /upload`). The price is charged at once (see the model table in the introduction) and refunded in full if the task fails. The answer is the task, `processing`; poll `GET /videos/{video_id}` about every 5 seconds until it is `completed` or `failed`.\n\nChecks, in this order: key (401), rate limit (429), validation (400), subscription (403 `paid_access_required`), credits (403 `insufficient_credits`), submission to the provider (502).',
    tag: 'Videos',
    request: {
      headers: idempotencyHeader,
      body: { required: true, description: 'Unknown fields are ignored.', ...json(generateVideoRequest, { prompt: 'a red fox running through snow', duration: 5 }) },
    },
    success: { description: 'The new task, `processing`.', ...json(videoTaskResponse, ok(EXAMPLE_VIDEO)) },
    errors: [400, 401, 403, 409, 413, 429, 500, 502],
    curl: `curl -s -X POST "{BASE}/generate" ${AUTH} \\\n  -H 'Content-Type: application/json' \\\n  -d '{"prompt":"a red fox running through snow","duration":5}'`,
  },
  {
    method: 'GET',
    routePath: `${API_PREFIX}/videos`,
    operationId: 'listVideos',
    summary: 'List your video tasks',
    description: 'Your video history, newest first, a page at a time. A page past the end is an empty list.',
    tag: 'Videos',
    request: { query: paginationQuery },
    success: {
      description: 'One page of video tasks.',
      ...json(videoPageResponse, ok({ videos: [EXAMPLE_VIDEO_DONE], pagination: EXAMPLE_PAGINATION })),
    },
    errors: [400, 401, 429, 500],
    errorNotes: { 400: { description: '`page` or `limit` is not an integer in range.', example: 'limit: must be an integer from 1 to 50' } },
    curl: `curl -s "{BASE}/videos?page=1&limit=20" ${AUTH}`,
  },
  {
    method: 'GET',
    routePath: `${API_PREFIX}/videos/{video_id}`,
    operationId: 'getVideo',
    summary: 'Get a video task',
    description:
      'The task and its status. While it is `processing` the service asks the provider for news before answering (answers within 2 s of the last check may reuse it); if that check fails, the stored state is returned, still `processing`.',
    tag: 'Videos',
    request: { params: videoIdParam },
    success: { description: 'The task.', ...json(videoTaskResponse, ok(EXAMPLE_VIDEO_DONE)) },
    errors: [401, 404, 429, 500],
    curl: `curl -s "{BASE}/videos/$VIDEO_ID" ${AUTH}`,
  },
  {
    method: 'POST',
    routePath: `${API_PREFIX}/generate-image`,
    operationId: 'generateImage',
    summary: 'Start an image generation task',
    description:
      'Starts an image task with the image model; with `images` (1 to 10 URLs) it edits those images. Needs paid access and an active subscription. Charged at once, refunded in full if the task fails; poll `GET /images/{image_id}` until it is final.\n\nChecks, in this order: key (401), rate limit (429), validation (400), paid access (403 `paid_access_required`), credits (403 `insufficient_credits`), submission (502).',
    tag: 'Images',
    request: {
      headers: idempotencyHeader,
      body: {
        required: true,
        description: 'Unknown fields are ignored.',
        ...json(generateImageRequest, { prompt: 'a lighthouse at dusk', resolution: '2k', aspect_ratio: '16:9', output_format: 'webp' }),
      },
    },
    success: { description: 'The new task, `processing`.', ...json(imageTaskResponse, ok(EXAMPLE_IMAGE)) },
    errors: [400, 401, 403, 409, 413, 429, 500, 502],
    curl: `curl -s -X POST "{BASE}/generate-image" ${AUTH} \\\n  -H 'Content-Type: application/json' \\\n  -d '{"prompt":"a lighthouse at dusk","resolution":"2k","aspect_ratio":"16:9","output_format":"webp"}'`,
  },
  {
    method: 'GET',
    routePath: `${API_PREFIX}/images`,
    operationId: 'listImages',
    summary: 'List your image tasks',
    description: 'Your image history, newest first, a page at a time. A page past the end is an empty list.',
    tag: 'Images',
    request: { query: paginationQuery },
    success: {
      description: 'One page of image tasks.',
      ...json(imagePageResponse, ok({ images: [EXAMPLE_IMAGE_DONE], pagination: EXAMPLE_PAGINATION })),
    },
    errors: [400, 401, 429, 500],
    errorNotes: { 400: { description: '`page` or `limit` is not an integer in range.', example: 'limit: must be an integer from 1 to 50' } },
    curl: `curl -s "{BASE}/images?page=1&limit=20" ${AUTH}`,
  },
  {
    method: 'GET',
    routePath: `${API_PREFIX}/images/{image_id}`,
    operationId: 'getImage',
    summary: 'Get an image task',
    description: 'The task and its status, refreshed from the provider while `processing` (same rules as videos).',
    tag: 'Images',
    request: { params: imageIdParam },
    success: { description: 'The task.', ...json(imageTaskResponse, ok(EXAMPLE_IMAGE_DONE)) },
    errors: [401, 404, 429, 500],
    errorNotes: { 404: { example: 'No image with id "img_01M7ZP0E1WQ4R5N8B2C6D7F9GH".' } },
    curl: `curl -s "{BASE}/images/$IMAGE_ID" ${AUTH}`,
  },
  {
    method: 'POST',
    routePath: `${API_PREFIX}/upload`,
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
  {
    method: 'POST',
    routePath: `${API_PREFIX}/uploads`,
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
  {
    method: 'POST',
    routePath: `${API_PREFIX}/uploads/{upload_id}/complete`,
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
  {
    method: 'GET',
    routePath: `${API_PREFIX}/credits`,
    operationId: 'getCredits',
    summary: 'Get your credits and access',
    description: 'Remaining credits, the paid-access flag and the subscription status of the account that owns the key.',
    tag: 'Account',
    success: {
      description: 'The account.',
      ...json(creditsResponse, ok({ credits: 1000, paid_access: true, subscription_status: 'active' })),
    },
    errors: [401, 429, 500],
    curl: `curl -s "{BASE}/credits" ${AUTH}`,
  },
  {
    method: 'GET',
    routePath: `${API_PREFIX}/openapi.json`,
    operationId: 'getOpenApiDocument',
    summary: 'This OpenAPI document',
    description:
      'The OpenAPI 3.1 document of this API, as JSON (not wrapped in the envelope). No key needed. `servers` names the address the request was made to.',
    tag: 'Reference',
    public: true,
    success: {
      description: 'The OpenAPI document.',
      content: { 'application/json': { schema: { type: 'object', description: 'An OpenAPI 3.1 document.' } } },
    },
    errors: [500],
    curl: 'curl -s "{BASE}/openapi.json"',
  },
  {
    method: 'GET',
    routePath: `${API_PREFIX}/docs`,
    operationId: 'getDocsPage',
    summary: 'API reference page',
    description: 'This reference as a web page (HTML). No key needed; it loads nothing from other sites.',
    tag: 'Reference',
    public: true,
    success: { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } },
    errors: [500],
    curl: 'curl -s "{BASE}/docs" -o api-reference.html',
  },
  {
    method: 'GET',
    routePath: `${API_PREFIX}/docs/assets/{file}`,
    operationId: 'getDocsAsset',
    summary: 'Script of the reference page',
    description: 'Files the reference page loads (the renderer). No key needed. Other names: 404.',
    tag: 'Reference',
    public: true,
    request: { params: assetParam },
    success: {
      description: 'The file, cacheable for a year (its name changes with its content).',
      content: { 'application/javascript': { schema: { type: 'string' } } },
    },
    errors: [404, 500],
    errorNotes: { 404: { description: 'No such file.', example: 'No docs asset "nope.js".' } },
    curl: `curl -s "{BASE}/docs/assets/${RENDERER_ASSET}" -o redoc.js`,
  },
];

/** The document's path for a route-table path: relative to the server URL, which ends in /api/v1. */
export const documentPath = (routePath: string): string =>
  routePath.startsWith(API_PREFIX) ? routePath.slice(API_PREFIX.length) : routePath;

/** One schema per error status (`Error400`, ...), the envelope narrowed to that status's codes. */
export const ERROR_SCHEMAS = Object.fromEntries(
  Object.entries(ERROR_STATUSES).map(([status, { codes }]) => [status, errorEnvelopeWith(`Error${status}`, codes)]),
) as Record<ErrorStatus, ReturnType<typeof errorEnvelopeWith>>;
