import * as z from 'zod';
import { generateImageBody } from '#contract/generate-image';
import { generateVideoBody } from '#contract/generate-video';
import { quoteRequest } from '#contract/quote';
import { endUserField } from '#contract/fields';
import { usageQuery } from '#contract/usage';
import { IMAGE_MODELS, MAX_REFERENCE_IMAGES, VIDEO_DURATION, VIDEO_MODELS } from '#domain/catalogue/catalogue';
import { MAX_UPLOAD_BYTES } from '#domain/catalogue/image-type';

/**
 * The MCP tools, shared by both servers: names, descriptions and input schemas here, the calls
 * behind them in a `ToolBackend` (the Lambda's calls the use cases, `vidgen mcp`'s the API through
 * the TS client). Inputs are the API's own zod schemas, so a new parameter of `POST /generate`
 * appears in `generate_video` without an edit here.
 */

export type TaskKind = 'video' | 'image';

/** What a tool call does, whichever way it reaches the API. Objects are the API's, as it answers them. */
export interface ToolBackend {
  generateVideo(body: Record<string, unknown>): Promise<object>;
  generateImage(body: Record<string, unknown>): Promise<object>;
  getTask(kind: TaskKind, id: string): Promise<TaskObject>;
  cancelTask(kind: TaskKind, id: string): Promise<object>;
  /** Deletes a final task's stored outputs; the task stays, with `output_deleted_at`. */
  deleteTask(kind: TaskKind, id: string): Promise<object>;
  listTasks(kind: TaskKind, page: { page?: number; limit?: number; end_user?: string }): Promise<object>;
  uploadImage(source: { url: string } | { bytes: Buffer }): Promise<object>;
  getCredits(): Promise<object>;
  listModels(): Promise<object>;
  /** The price of a start and whether it would go ahead now; `body` is validated as the start validates it. */
  quote(body: Record<string, unknown>): Promise<object>;
  /** GET /usage's report (JSON); `query` as the route's query string would carry it, already valid. */
  getUsage(query: { from?: string; to?: string; group_by?: 'day' | 'model' | 'key' | 'end_user' }): Promise<object>;
  /** The API error code and message of anything a call threw (an unknown error: `internal_error`). */
  describeError(error: unknown): { code: string; message: string };
}

/** The fields of a task that waiting reads (video and image tasks both carry them). */
export interface TaskObject {
  status: string;
  progress: number;
}

export const MAX_WAIT_SECONDS = 50;

const taskId = z
  .string({ error: 'must be a task id' })
  .regex(/^(vid|img)_[0-9A-Za-z]+$/, 'must be a video_id (vid_…) or an image_id (img_…)')
  .meta({ description: 'A task id: a `video_id` (vid_…) or an `image_id` (img_…).' });

const waitInput = z.object({
  id: taskId,
  timeout_seconds: z
    .number({ error: `must be a number of seconds from 1 to ${MAX_WAIT_SECONDS}` })
    .int(`must be a whole number of seconds from 1 to ${MAX_WAIT_SECONDS}`)
    .min(1, 'must be at least 1 second')
    .max(MAX_WAIT_SECONDS, `must be at most ${MAX_WAIT_SECONDS} seconds`)
    .default(30)
    .meta({ description: `How long to wait, 1-${MAX_WAIT_SECONDS} seconds (default 30).` }),
});

const listInput = z.object({
  kind: z.enum(['video', 'image']).default('video').meta({ description: 'Which history: `video` (default) or `image`.' }),
  page: z.number().int().min(1).default(1).meta({ description: 'Page number from 1; past the last page: an empty list.' }),
  limit: z.number().int().min(1).max(50).default(20).meta({ description: 'Tasks per page, 1-50 (default 20).' }),
  end_user: endUserField.optional().meta({ description: 'Only the tasks started with this end_user (your own id of your user).' }),
});

const uploadInput = z
  .object({
    url: z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' }).optional().meta({ description: 'A public http(s) URL of the image to copy.' }),
    data_base64: z.base64('must be base64').optional().meta({ description: 'The image file itself, base64-encoded.' }),
  })
  .refine((input) => (input.url === undefined) !== (input.data_base64 === undefined), {
    message: 'give exactly one of url and data_base64',
  });

const noInput = z.object({});

const videoPrices = Object.entries(VIDEO_MODELS)
  .map(([id, model]) => `${id} ${model.creditsPerSecond} credits/s${model.subscriptionRequired ? ' (paid access)' : ''}`)
  .join(', ');
const imagePrices = Object.entries(IMAGE_MODELS)
  .map(([id, model]) => `${id} ${model.creditsPerImage} credits/image${model.subscriptionRequired ? ' (paid access)' : ''}`)
  .join(', ');
const TEST_KEYS =
  'With a test key (vg_test_…) it runs on test credits against a simulated provider (fast, free, sample output); with a live key it spends real credits.';
const ASYNC =
  'It returns at once with the task `status: "processing"`; then call wait_for_task with its id until the status is `completed` (the result URL is then in the task) or `failed` (refunded).';

export interface ToolDefinition<Input extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  input: Input;
}

/** Every tool the servers offer, in the order they list them. */
export const TOOLS = {
  generate_video: {
    name: 'generate_video',
    description: `Start generating a video from a prompt (text_to_video), or from a prompt and a reference image (image_to_video: set image_url, e.g. from upload_image). Charged when started, refunded if it fails. Price per second of video: ${videoPrices}; duration ${VIDEO_DURATION.min}-${VIDEO_DURATION.max} s (default ${VIDEO_DURATION.default}), rounded up per video. ${TEST_KEYS} ${ASYNC}`,
    input: generateVideoBody,
  },
  generate_image: {
    name: 'generate_image',
    description: `Start generating an image from a prompt, or edit up to ${MAX_REFERENCE_IMAGES} reference images (set images, e.g. URLs from upload_image). Charged when started, refunded if it fails. Price: ${imagePrices}. ${TEST_KEYS} ${ASYNC}`,
    input: generateImageBody,
  },
  get_task: {
    name: 'get_task',
    description: 'Get a video or image task by id (vid_… or img_…): status (processing, completed, failed), progress 0-100, and the result URL(s) once completed or the error once failed. Does not wait: use wait_for_task to wait.',
    input: z.object({ id: taskId }),
  },
  wait_for_task: {
    name: 'wait_for_task',
    description: `Wait for a video or image task to end, sending progress notifications while it waits (when the client asks for them). Returns the task as soon as it is completed or failed, or the task as it stands when timeout_seconds (at most ${MAX_WAIT_SECONDS}) has passed. If the returned status is still "processing", the task carries on: call wait_for_task again with the same id. Videos usually take 1-2 minutes; test-key tasks a few seconds.`,
    input: waitInput,
  },
  cancel_task: {
    name: 'cancel_task',
    description: 'Cancel a task that is still processing: it ends as failed (error code canceled) and its credits are refunded. A task that already ended cannot be canceled (error task_not_cancelable).',
    input: z.object({ id: taskId }),
  },
  delete_task: {
    name: 'delete_task',
    description:
      "Delete a finished task's stored result files (video and thumbnail, or images): their URLs stop working, the task stays with output_deleted_at, and nothing is refunded. Irreversible; calling it again changes nothing. A task still processing, or completed but still being delivered to its output_destination (delivery.status pending), cannot be deleted (error task_not_final): wait for it to finish (or cancel a processing one) first.",
    input: z.object({ id: taskId }),
  },
  list_tasks: {
    name: 'list_tasks',
    description: 'List your video tasks (kind: video, the default) or image tasks (kind: image), newest first, a page at a time; with end_user, only that end user\'s tasks.',
    input: listInput,
  },
  upload_image: {
    name: 'upload_image',
    description: `Store a reference image (JPEG, PNG or WebP, at most ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB) and get its public URL, to pass as image_url to generate_video or in images to generate_image. Give either url (a public http(s) image to copy) or data_base64 (the file, base64-encoded).`,
    input: uploadInput,
  },
  get_credits: {
    name: 'get_credits',
    description: 'Your remaining credits, whether the account has paid access (needed by some models) and its subscription status. A test key shows its test balance.',
    input: noInput,
  },
  list_models: {
    name: 'list_models',
    description: 'Every model with its price, defaults, allowed parameter values and capabilities: read it to choose a model and valid parameters before generate_video or generate_image.',
    input: noInput,
  },
  quote: {
    name: 'quote',
    description: 'The price in credits of a generate_video (kind: "video") or generate_image (kind: "image") with these parameters, and whether it would go ahead now (credits, paid access, spend limit) and if not why. Nothing is charged or started.',
    input: quoteRequest,
  },
  get_usage: {
    name: 'get_usage',
    description:
      'What your tasks cost over a range of UTC days (from, to as YYYY-MM-DD, both included, at most 366 days; default: the current month), one row per group_by: day (the default), model, key (the API key id) or end_user, with totals: tasks, credits_charged, credits_refunded (for tasks that failed), credits_net. It agrees with the ledger. A test key reports test mode.',
    input: usageQuery,
  },
} as const satisfies Record<string, ToolDefinition>;

export type ToolName = keyof typeof TOOLS;

/** A tool as MCP lists it: its input as JSON Schema, read off the zod schema (as the caller sends it). */
export function listedTool(tool: ToolDefinition): { name: string; description: string; inputSchema: { type: 'object'; [key: string]: unknown } } {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' });
  return { name: tool.name, description: tool.description, inputSchema: { ...schema, type: 'object' } };
}
