import * as z from 'zod';
import { SUBSCRIPTION_STATUSES } from '../domain/account';
import {
  GENERATION_TYPES,
  IMAGE_ASPECT_RATIOS,
  IMAGE_MODEL_IDS,
  IMAGE_RESOLUTIONS,
  OUTPUT_FORMATS,
  VIDEO_ASPECT_RATIOS,
  VIDEO_MODEL_IDS,
  VIDEO_RESOLUTIONS,
} from '../domain/catalogue';
import { IMAGE_EXTENSIONS, MAX_UPLOAD_BYTES, type ImageContentType } from '../domain/image-type';
import type { TaskErrorCode, TaskStatus } from '../domain/task';
import type { ErrorCode } from '../http/envelope';

/**
 * Zod schemas of what the API answers, for the OpenAPI document. They mirror the views the
 * handlers return (domain/task-views.ts, domain/uploads.ts, domain/account.ts,
 * domain/list-tasks.ts) field for field, optional where the view leaves a field out; the
 * contract tests check every response of the end-to-end suite against them.
 * Request schemas are not repeated here: the document uses the handlers' own.
 */

/** Lists of values whose source is a TypeScript union: the checks below fail to compile on drift. */
export const ERROR_CODES = [
  'validation_error',
  'unauthorized',
  'insufficient_credits',
  'paid_access_required',
  'not_found',
  'idempotency_conflict',
  'payload_too_large',
  'rate_limit_exceeded',
  'internal_error',
  'upstream_error',
] as const satisfies readonly ErrorCode[];
export const TASK_STATUSES = ['processing', 'completed', 'failed'] as const satisfies readonly TaskStatus[];
export const TASK_ERROR_CODES = [
  'upstream_error',
  'content_rejected',
  'timeout',
  'internal_error',
] as const satisfies readonly TaskErrorCode[];
const IMAGE_CONTENT_TYPES = Object.keys(IMAGE_EXTENSIONS) as [ImageContentType, ...ImageContentType[]];

type Exhaustive<Union, Listed> = [Exclude<Union, Listed>] extends [never] ? true : never;
const exhaustive: [
  Exhaustive<ErrorCode, (typeof ERROR_CODES)[number]>,
  Exhaustive<TaskStatus, (typeof TASK_STATUSES)[number]>,
  Exhaustive<TaskErrorCode, (typeof TASK_ERROR_CODES)[number]>,
] = [true, true, true];
void exhaustive;

const EXAMPLE_TIME = '2026-11-21T17:00:00.000Z';
const timestamp = (description: string) => z.iso.datetime().meta({ description, examples: [EXAMPLE_TIME] });
const credits = (description: string) => z.number().int().nonnegative().meta({ description });

export const taskStatus = z.enum(TASK_STATUSES).meta({
  id: 'TaskStatus',
  description:
    '`processing` until the task ends; then `completed` or `failed`, which are final (a final task never changes again). Poll about every 5 seconds.',
});

export const taskError = z
  .object({
    message: z.string().meta({ description: 'Human-readable reason.' }),
    code: z.enum(TASK_ERROR_CODES).meta({
      description:
        '`upstream_error`: the provider failed; `content_rejected`: the provider refused the prompt or image; `timeout`: still processing after the time limit (30 min by default); `internal_error`: a failure on our side.',
    }),
  })
  .meta({ id: 'TaskError', description: 'Why a task failed (failed tasks only). Its credits were refunded in full.' });

/**
 * Fields that depend on `status` (task-views.ts): results only when completed, the error only
 * when failed, completed_at once final. As JSON Schema (one variant per status, named by its
 * title, which renderers show as tabs), so that clients and the contract tests see one rule.
 */
function statusVariants(resultField: string) {
  const absent = (...fields: string[]) => ({
    not: fields.length === 1 ? { required: fields } : { anyOf: fields.map((field) => ({ required: [field] })) },
  });
  const variant = (status: TaskStatus, description: string, rules: object) => ({
    title: status,
    description,
    properties: { status: { const: status } },
    ...rules,
  });
  return [
    variant('processing', `Still running: no \`${resultField}\`, \`error\` or \`completed_at\` yet.`, absent(resultField, 'error', 'completed_at')),
    variant('completed', `Finished: \`${resultField}\` and \`completed_at\` are present.`, {
      required: [resultField, 'completed_at'],
      ...absent('error'),
    }),
    variant('failed', 'Failed and refunded: `error` and `completed_at` are present.', {
      required: ['error', 'completed_at'],
      ...absent(resultField),
    }),
  ];
}

export const videoTask = z
  .object({
    video_id: z.string().meta({ description: 'Task id (`vid_` + ULID). Use it in `GET /videos/{video_id}`.', examples: ['vid_01M7ZNHRE3YZJA4Y3XQS4DQDGQ'] }),
    status: taskStatus,
    model: z.enum(VIDEO_MODEL_IDS),
    generation_type: z.enum(GENERATION_TYPES),
    prompt: z.string().meta({ description: 'The prompt as stored (trimmed).' }),
    image_url: z.string().meta({ description: 'Reference image (image_to_video only).' }).optional(),
    aspect_ratio: z.enum(VIDEO_ASPECT_RATIOS),
    duration: z.number().int().meta({ description: 'Length in seconds.' }),
    resolution: z.enum(VIDEO_RESOLUTIONS),
    credits_used: credits('Credits charged for this task (refunded if it failed).'),
    video_url: z.url().meta({ description: 'The MP4, public, no key needed (completed only).' }).optional(),
    error: taskError.optional(),
    created_at: timestamp('When the task was started.'),
    updated_at: timestamp('Last change of the task.'),
    completed_at: timestamp('When the task ended (completed or failed only).').optional(),
  })
  .meta({
    id: 'VideoTask',
    description:
      'A video generation task. `video_url` is present when `completed`, `error` when `failed`, `completed_at` once final; `image_url` for image_to_video only.',
    oneOf: statusVariants('video_url'),
  });

export const imageTask = z
  .object({
    image_id: z.string().meta({ description: 'Task id (`img_` + ULID). Use it in `GET /images/{image_id}`.', examples: ['img_01M7ZP0E1WQ4R5N8B2C6D7F9GH'] }),
    status: taskStatus,
    model: z.enum(IMAGE_MODEL_IDS),
    prompt: z.string().meta({ description: 'The prompt as stored (trimmed).' }),
    resolution: z.enum(IMAGE_RESOLUTIONS),
    aspect_ratio: z.enum(IMAGE_ASPECT_RATIOS),
    output_format: z.enum(OUTPUT_FORMATS),
    images: z.array(z.string()).meta({ description: 'Reference images (edit mode only).' }).optional(),
    credits_used: credits('Credits charged for this task (refunded if it failed).'),
    image_urls: z.array(z.url()).meta({ description: 'The images, public, no key needed (completed only).' }).optional(),
    error: taskError.optional(),
    created_at: timestamp('When the task was started.'),
    updated_at: timestamp('Last change of the task.'),
    completed_at: timestamp('When the task ended (completed or failed only).').optional(),
  })
  .meta({
    id: 'ImageTask',
    description:
      'An image generation task. `image_urls` is present when `completed`, `error` when `failed`, `completed_at` once final; `images` in edit mode only.',
    oneOf: statusVariants('image_urls'),
  });

export const pagination = z
  .object({
    page: z.number().int().min(1).meta({ description: 'This page (from 1).' }),
    limit: z.number().int().min(1).max(50).meta({ description: 'Items per page.' }),
    total: z.number().int().nonnegative().meta({ description: 'Tasks in the whole history.' }),
    total_pages: z.number().int().nonnegative().meta({ description: '`ceil(total / limit)`.' }),
    has_more: z.boolean().meta({ description: 'Whether a later page has items.' }),
  })
  .meta({ id: 'Pagination', description: 'Where this page sits in the history. A page past the end is empty, not an error.' });

export const videoPage = z
  .object({
    videos: z.array(videoTask).meta({ description: 'Newest first.' }),
    pagination,
  })
  .meta({ id: 'VideoPage' });

export const imagePage = z
  .object({
    images: z.array(imageTask).meta({ description: 'Newest first.' }),
    pagination,
  })
  .meta({ id: 'ImagePage' });

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

export const creditsView = z
  .object({
    credits: z.number().int().meta({ description: 'Remaining credits.' }),
    paid_access: z.boolean().meta({ description: 'Whether the account has paid access (needed by `POST /generate-image`).' }),
    subscription_status: z.enum(SUBSCRIPTION_STATUSES).meta({
      description: 'Models marked "subscription required" (vid-2-0, vid-2-0-fast, image-2) need paid access and `active`.',
    }),
  })
  .meta({ id: 'Credits' });

/** `{ data, error: null }` around a success payload. */
const successEnvelope = <T extends z.ZodType>(id: string, data: T) =>
  z.object({ data, error: z.null() }).meta({ id, description: 'Success: `data` is the result, `error` is null.' });

export const videoTaskResponse = successEnvelope('VideoTaskResponse', videoTask);
export const videoPageResponse = successEnvelope('VideoPageResponse', videoPage);
export const imageTaskResponse = successEnvelope('ImageTaskResponse', imageTask);
export const imagePageResponse = successEnvelope('ImagePageResponse', imagePage);
export const uploadedImageResponse = successEnvelope('UploadedImageResponse', uploadedImage);
export const directUploadResponse = successEnvelope('DirectUploadResponse', directUpload);
export const creditsResponse = successEnvelope('CreditsResponse', creditsView);

/** The error envelope narrowed to the codes one status can carry. */
export const errorEnvelopeWith = (id: string, codes: readonly [ErrorCode, ...ErrorCode[]]) =>
  z
    .object({
      data: z.null(),
      error: z.object({
        message: z.string(),
        code: z.enum(codes as [ErrorCode, ...ErrorCode[]]),
      }),
    })
    .meta({
      id,
      description: `Error: \`data\` is null, \`error\` has a human-readable \`message\` and the \`code\` ${codes.map((code) => `\`${code}\``).join(' or ')}.`,
    });
