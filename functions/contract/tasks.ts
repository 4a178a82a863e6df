import { deliveryOf, deliveryView } from './destinations';
import * as z from 'zod';
import {
  GENERATION_TYPES,
  IMAGE_ASPECT_RATIOS,
  IMAGE_MODEL_IDS,
  IMAGE_RESOLUTIONS,
  OUTPUT_FORMATS,
  VIDEO_ASPECT_RATIOS,
  VIDEO_MODEL_IDS,
  VIDEO_RESOLUTIONS,
} from '#domain/catalogue/catalogue';
import { isLivemode } from '#domain/shared/partition';
import { TASK_ERROR_CODES, TASK_STATUSES, type ImageTask, type Task, type TaskStatus, type VideoTask } from '#domain/tasks/task';
import { creditsRefunded } from '#domain/tasks/charges';
import { type GenerationExtras } from '#domain/catalogue/params';
import { successEnvelopeSchema } from './envelope';
import { credits, endUserField, timestamp } from './fields';
import { pagination, paginationQuery, paginationView, type PageOf } from './pagination';

/**
 * The public shape of video and image tasks: snake_case, results only when completed, the
 * error only when failed, completed_at once final. The views below are typed by the schemas,
 * so a view that drifts from its schema does not compile.
 */

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
        '`upstream_error`: the provider failed; `content_rejected`: the provider refused the prompt or image; `timeout`: still processing after the time limit (30 min by default); `internal_error`: a failure on our side; `canceled`: you canceled it.',
    }),
  })
  .meta({ id: 'TaskError', description: 'Why a task failed (failed tasks only). Its credits were refunded in full.' });

/**
 * Fields that depend on `status` (see the views below): results only when completed, the error only
 * when failed, completed_at once final. As JSON Schema (one variant per status, named by its
 * title, which renderers show as tabs), so that clients and the contract tests see one rule.
 */
function statusVariants(resultField: string, emptied: Record<string, object> = {}) {
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
    variant('processing', `Still running: \`queue_position\` and \`estimated_completion_at\` are present (null when unknown); no \`${resultField}\`, \`error\` or \`completed_at\` yet.`, {
      required: ['queue_position', 'estimated_completion_at'],
      ...absent(resultField, 'error', 'completed_at'),
    }),
    variant('completed', `Finished: \`${resultField}\` and \`completed_at\` are present.`, {
      properties: { status: { const: 'completed' }, output_deleted_at: { type: 'null' } },
      required: [resultField, 'completed_at'],
      ...absent('error', 'queue_position', 'estimated_completion_at'),
    }),
    {
      title: 'completed (outputs deleted)',
      description: `Finished, its outputs since deleted: \`output_deleted_at\` and \`completed_at\` are present, \`${resultField}\` is not.`,
      properties: { status: { const: 'completed' }, output_deleted_at: { type: 'string' }, ...emptied },
      required: ['output_deleted_at', 'completed_at'],
      ...absent(resultField, 'error', 'queue_position', 'estimated_completion_at'),
    },
    variant('failed', 'Failed and refunded: `error` and `completed_at` are present.', {
      required: ['error', 'completed_at'],
      ...absent(resultField, 'queue_position', 'estimated_completion_at'),
    }),
  ];
}

/** Where a processing task stands and when it should end: on both kinds, while processing only. */
const timingFields = {
  queue_position: z
    .number()
    .int()
    .min(0)
    .nullable()
    .meta({
      description:
        'Processing only: how many tasks are ahead of this one before it runs, in our submission queue or as the provider reports its own (0 once it runs; null when nobody says, e.g. while the create is going out).',
    })
    .optional(),
  estimated_completion_at: timestamp(
    'Processing only: when the task should complete, from the recent durations of its model on its provider, tightened as the provider reports progress (null without history). An estimate, not a promise.',
  )
    .nullable()
    .optional(),
};

/** seed and negative_prompt as given at the start, null when not given: on both kinds. */
const extrasFields = {
  seed: z.number().int().nullable().meta({ description: 'The seed given at the start (null when none was).' }),
  negative_prompt: z.string().nullable().meta({ description: 'The negative prompt as stored (trimmed; null when none was given).' }),
};

/** Who the task is for, as given at the start: on both kinds, in every view, event and MCP result. */
const attributionFields = {
  end_user: z.string().nullable().meta({ description: 'The `end_user` given at the start (null when none was).', examples: ['user_1842'] }),
  metadata: z.record(z.string(), z.string()).meta({ description: 'The `metadata` given at the start (`{}` when none was).', examples: [{ order_id: '1001' }] }),
};

const expiresAt = timestamp(
  "When the outputs will be deleted under the account's `output_retention_days` (`completed_at` + that many days; deleted within an hour after). Null when kept for good, and unless completed with its outputs.",
).nullable();

const outputDeletedAt = timestamp(
  'When the outputs were deleted (`DELETE` on the task): from then on no result URLs, and the old ones answer 404. Null while they are kept.',
).nullable();

export const videoTask = z
  .object({
    video_id: z.string().meta({ description: 'Task id (`vid_` + ULID). Use it in `GET /videos/{video_id}`.', examples: ['vid_01M7ZNHRE3YZJA4Y3XQS4DQDGQ'] }),
    status: taskStatus,
    model: z.enum(VIDEO_MODEL_IDS),
    generation_type: z.enum(GENERATION_TYPES),
    prompt: z.string().meta({ description: 'The prompt as stored (trimmed).' }),
    image_url: z.string().meta({ description: 'Reference image (image_to_video only).' }).optional(),
    end_image_url: z.string().nullable().meta({ description: 'The image the video ends on, as given (null when none was).' }),
    aspect_ratio: z.enum(VIDEO_ASPECT_RATIOS),
    duration: z.number().int().meta({ description: 'Length in seconds.' }),
    resolution: z.enum(VIDEO_RESOLUTIONS),
    ...extrasFields,
    ...attributionFields,
    credits_used: credits('Credits charged for this task (refunded if it failed).'),
    credits_refunded: credits('Credits given back: 0, or the whole charge once the task failed (a failure or a cancel refunds it).'),
    ...timingFields,
    progress: z.number().int().min(0).max(100).meta({ description: 'How far the task is, 0-100: 0 at start, rising while processing (held at 95 or below), 100 when completed; a failed task keeps its last value. Never goes down.' }),
    livemode: z.boolean().meta({ description: '`true` for a task started with a live key, `false` with a test key (`vg_test_`: simulated provider, test credits).' }),
    video_url: z.url().meta({ description: 'The MP4, public, no key needed (completed only).' }).optional(),
    thumbnail_url: z
      .url()
      .nullable()
      .meta({ description: 'The first frame as a JPEG of the video\'s size, public like `video_url`. Null until the task completes, and when it could not be made (the video is still delivered).' }),
    error: taskError.optional(),
    created_at: timestamp('When the task was started.'),
    updated_at: timestamp('Last change of the task.'),
    completed_at: timestamp('When the task ended (completed or failed only).').optional(),
    output_deleted_at: outputDeletedAt,
    expires_at: expiresAt,
    delivery: deliveryView,
  })
  .meta({
    id: 'VideoTask',
    description:
      'A video generation task. `video_url` is present when `completed`, `error` when `failed`, `completed_at` once final; `image_url` for image_to_video only.',
    oneOf: statusVariants('video_url', { thumbnail_url: { type: 'null' } }),
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
    ...extrasFields,
    ...attributionFields,
    credits_used: credits('Credits charged for this task (refunded if it failed).'),
    credits_refunded: credits('Credits given back: 0, or the whole charge once the task failed (a failure or a cancel refunds it).'),
    ...timingFields,
    progress: z.number().int().min(0).max(100).meta({ description: 'How far the task is, 0-100: 0 at start, rising while processing (held at 95 or below), 100 when completed; a failed task keeps its last value. Never goes down.' }),
    livemode: z.boolean().meta({ description: '`true` for a task started with a live key, `false` with a test key (`vg_test_`: simulated provider, test credits).' }),
    image_urls: z.array(z.url()).meta({ description: 'The images, public, no key needed (completed only).' }).optional(),
    error: taskError.optional(),
    created_at: timestamp('When the task was started.'),
    updated_at: timestamp('Last change of the task.'),
    completed_at: timestamp('When the task ended (completed or failed only).').optional(),
    output_deleted_at: outputDeletedAt,
    expires_at: expiresAt,
    delivery: deliveryView,
  })
  .meta({
    id: 'ImageTask',
    description:
      'An image generation task. `image_urls` is present when `completed`, `error` when `failed`, `completed_at` once final; `images` in edit mode only.',
    oneOf: statusVariants('image_urls'),
  });

export type VideoTaskView = z.infer<typeof videoTask>;
export type ImageTaskView = z.infer<typeof imageTask>;

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

/** `GET /videos` and `/images`: a page, of one end user's tasks only when `end_user` is given. */
export const taskListQuery = paginationQuery.extend({
  end_user: endUserField.optional().meta({
    description: 'Only the tasks started with this `end_user`, newest first, paged the same way (each page costs the same whatever the size of the account).',
    examples: ['user_1842'],
  }),
});

export const videoTaskResponse = successEnvelopeSchema('VideoTaskResponse', videoTask);
export const videoPageResponse = successEnvelopeSchema('VideoPageResponse', videoPage);
export const imageTaskResponse = successEnvelopeSchema('ImageTaskResponse', imageTask);
export const imagePageResponse = successEnvelopeSchema('ImagePageResponse', imagePage);

/** What every task view shares, final-only fields only when final. */
function common(task: Task) {
  return {
    status: task.status,
    credits_used: task.creditsUsed,
    credits_refunded: creditsRefunded(task),
    progress: task.progress,
    livemode: isLivemode(task.partitionId),
    ...(task.status === 'processing' && {
      queue_position: task.timing?.queuePosition ?? null,
      estimated_completion_at: task.timing?.estimatedCompletionAt ?? null,
    }),
    ...(task.status === 'failed' && task.error && { error: { message: task.error.message, code: task.error.code } }),
    created_at: task.createdAt,
    updated_at: task.updatedAt,
    ...(task.completedAt && { completed_at: task.completedAt }),
    output_deleted_at: task.outputDeletedAt ?? null,
  };
}

/** Result URLs are shown while completed and not deleted. */
const showsResults = (task: Task) => task.status === 'completed' && !task.outputDeletedAt;

const extrasView = (params: GenerationExtras) => ({ seed: params.seed ?? null, negative_prompt: params.negativePrompt ?? null });
const attributionView = (task: Task) => ({ end_user: task.endUser ?? null, metadata: { ...task.metadata } });

/** `expires`: when the outputs expire under the account's retention (domain/tasks/retention.ts `expiresAt`); null when they do not. */
export function videoView(task: VideoTask, expires: string | null = null): VideoTaskView {
  const { params } = task;
  const { status, credits_used, credits_refunded, queue_position, estimated_completion_at, progress, livemode, error, created_at, updated_at, completed_at, output_deleted_at } = common(task);
  return {
    video_id: task.taskId,
    status,
    model: params.model,
    generation_type: params.generationType,
    prompt: params.prompt,
    ...(params.generationType === 'image_to_video' && { image_url: params.imageUrl }),
    end_image_url: params.endImageUrl ?? null,
    aspect_ratio: params.aspectRatio,
    duration: params.duration,
    resolution: params.resolution,
    ...extrasView(params),
    ...attributionView(task),
    credits_used,
    credits_refunded,
    ...(status === 'processing' && { queue_position, estimated_completion_at }),
    progress,
    livemode,
    ...(showsResults(task) && { video_url: task.outputUrls?.[0] }),
    thumbnail_url: (showsResults(task) && task.thumbnailUrl) || null,
    ...(error && { error }),
    created_at,
    updated_at,
    ...(completed_at && { completed_at }),
    output_deleted_at,
    expires_at: expires,
    delivery: deliveryOf(task.delivery),
  };
}

export function imageView(task: ImageTask, expires: string | null = null): ImageTaskView {
  const { params } = task;
  const { status, credits_used, credits_refunded, queue_position, estimated_completion_at, progress, livemode, error, created_at, updated_at, completed_at, output_deleted_at } = common(task);
  return {
    image_id: task.taskId,
    status,
    model: params.model,
    prompt: params.prompt,
    resolution: params.resolution,
    aspect_ratio: params.aspectRatio,
    output_format: params.outputFormat,
    ...(params.images && { images: params.images }),
    ...extrasView(params),
    ...attributionView(task),
    credits_used,
    credits_refunded,
    ...(status === 'processing' && { queue_position, estimated_completion_at }),
    progress,
    livemode,
    ...(showsResults(task) && { image_urls: task.outputUrls ?? [] }),
    ...(error && { error }),
    created_at,
    updated_at,
    ...(completed_at && { completed_at }),
    output_deleted_at,
    expires_at: expires,
    delivery: deliveryOf(task.delivery),
  };
}

type ExpiryOf = (task: Task) => string | null;
const never: ExpiryOf = () => null;

export const videoPageView = (page: PageOf<VideoTask>, expiry: ExpiryOf = never): z.infer<typeof videoPage> => ({
  videos: page.items.map((task) => videoView(task, expiry(task))),
  pagination: paginationView(page),
});

export const imagePageView = (page: PageOf<ImageTask>, expiry: ExpiryOf = never): z.infer<typeof imagePage> => ({
  images: page.items.map((task) => imageView(task, expiry(task))),
  pagination: paginationView(page),
});
