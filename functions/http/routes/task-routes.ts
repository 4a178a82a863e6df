import type * as z from 'zod';
import { EXAMPLE_PAGINATION, ok } from '#contract/examples';
import { idempotencyHeader } from '#contract/params';
import { taskListQuery } from '#contract/tasks';
import type { OperationDoc, RouteDoc } from '../route';
import { AUTH, json, PAGE_ERROR_NOTE } from './operation-doc';

type TaskKind = 'video' | 'image';

/** What differs between the video and the image routes; everything else is written once below. */
export interface TaskKindSpec<K extends TaskKind> {
  kind: K;
  /** The article before the kind in prose ("a video", "an image"). */
  article: 'a' | 'an';
  tag: OperationDoc['tag'];
  /** The path parameter `{<kind>_id}`. */
  idParam: z.ZodObject;
  taskResponse: z.ZodType;
  pageResponse: z.ZodType;
  /** Example tasks: just started, completed, and completed with its outputs deleted. */
  examples: { started: Record<`${K}_id`, string>; completed: object; deleted: object };
  generate: {
    /** The path the curl example calls (the route's own is its spec's). */
    path: string;
    handler: string;
    description: string;
    request: z.ZodType;
    /** The request body the reference and the curl example show. */
    example: object;
  };
  /** How `GET /<kind>s/{id}` describes itself. */
  getDescription: string;
}

const capitalized = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** The documentation of a task kind's four routes: start, list, get and cancel. */
export function taskDocs<K extends TaskKind>(spec: TaskKindSpec<K>): RouteDoc[] {
  const { kind, article, tag, examples } = spec;
  const a = `${article} ${kind}`;
  const plural = `${kind}s`;
  const Kind = capitalized(kind);
  const taskId = examples.started[`${kind}_id`];
  // The shell variable the curl examples use for the id: $VIDEO_ID, $IMAGE_ID.
  const idVariable = `$${kind.toUpperCase()}_ID`;
  // A final view has no timing fields.
  const { queue_position: _place, estimated_completion_at: _end, ...final } = examples.started as Record<string, unknown>;
  const canceled = {
    ...final,
    status: 'failed',
    progress: 12,
    error: { code: 'canceled', message: 'The task was canceled. Your credits were refunded.' },
    completed_at: '2026-11-21T17:00:05.000Z',
    updated_at: '2026-11-21T17:00:05.000Z',
  };

  return [
    {
      handler: spec.generate.handler,
      doc: {
        operationId: `generate${Kind}`,
        summary: `Start ${a} generation task`,
        description: spec.generate.description,
        tag,
        request: {
          headers: idempotencyHeader,
          body: { required: true, description: 'Unknown fields are ignored.', ...json(spec.generate.request, spec.generate.example) },
        },
        success: { description: 'The new task, `processing`.', ...json(spec.taskResponse, ok(examples.started)) },
        errors: [400, 401, 403, 409, 413, 429, 500, 502],
        curl: `curl -s -X POST "{BASE}${spec.generate.path}" ${AUTH} \\\n  -H 'Content-Type: application/json' \\\n  -d '${JSON.stringify(spec.generate.example)}'`,
      },
    },
    {
      handler: `list-${plural}`,
      doc: {
        operationId: `list${Kind}s`,
        summary: `List your ${kind} tasks`,
        description: `Your ${kind} history, newest first, a page at a time, or with \`end_user\` that end user's part of it. A page past the end is an empty list.`,
        tag,
        request: { query: taskListQuery },
        success: {
          description: `One page of ${kind} tasks.`,
          ...json(spec.pageResponse, ok({ [plural]: [examples.completed], pagination: EXAMPLE_PAGINATION })),
        },
        errors: [400, 401, 429, 500],
        errorNotes: { 400: { description: `${PAGE_ERROR_NOTE.description} Or \`end_user\` is not 1 to 128 characters of A-Z a-z 0-9 _ - . : @.`, example: PAGE_ERROR_NOTE.example } },
        curl: `curl -s "{BASE}/${plural}?page=1&limit=20" ${AUTH}`,
      },
    },
    {
      handler: `get-${kind}`,
      doc: {
        operationId: `get${Kind}`,
        summary: `Get ${a} task`,
        description: spec.getDescription,
        tag,
        request: { params: spec.idParam },
        success: { description: 'The task.', ...json(spec.taskResponse, ok(examples.completed)) },
        errors: [401, 404, 429, 500],
        errorNotes: { 404: { example: `No ${kind} with id "${taskId}".` } },
        curl: `curl -s "{BASE}/${plural}/${idVariable}" ${AUTH}`,
      },
    },
    {
      handler: `cancel-${kind}`,
      doc: {
        operationId: `cancel${Kind}`,
        summary: `Cancel ${a} task`,
        description:
          'A `processing` task becomes `failed` with `error.code` `canceled` and its credits are refunded in full, once; the provider is asked to stop the job. A task that has already completed or failed (or whose result is already being stored) answers 409 `task_not_cancelable`. A cancel racing the completion has exactly one outcome: completed (the cancel gets 409) or canceled (refunded, and no result is ever published).',
        tag,
        request: { params: spec.idParam },
        success: { description: 'The canceled task.', ...json(spec.taskResponse, ok(canceled)) },
        errors: [401, 404, 409, 429, 500],
        errorNotes: {
          409: { description: 'The task has already completed or failed.', example: `The ${kind} ${taskId} has already completed: only a processing task can be canceled.` },
        },
        curl: `curl -s -X POST "{BASE}/${plural}/${idVariable}/cancel" ${AUTH}`,
      },
    },
    {
      handler: `delete-${kind}`,
      doc: {
        operationId: `delete${Kind}`,
        summary: `Delete ${a} task's outputs`,
        description: `Deletes the stored ${kind === 'video' ? 'video and its thumbnail' : 'images'} of a final task. The task stays, with \`output_deleted_at\` and no result URLs; the old URLs answer 404 (through the CDN within 5 minutes). Charges are unchanged: nothing is refunded. A second call answers the same task. A failed task (nothing stored) takes \`output_deleted_at\` too. A \`processing\` task answers 409 \`task_not_final\`, and so does a completed one still being delivered to its \`output_destination\` (\`delivery.status\` \`pending\`): retry once the delivery has ended. This cannot be undone.`,
        tag,
        request: { params: spec.idParam },
        success: { description: 'The task, its outputs deleted.', ...json(spec.taskResponse, ok(examples.deleted)) },
        errors: [401, 404, 409, 429, 500],
        errorNotes: {
          409: { description: 'The task is still processing.', example: `The ${kind} ${taskId} is still processing: only a completed or failed task's outputs can be deleted.` },
        },
        curl: `curl -s -X DELETE "{BASE}/${plural}/${idVariable}" ${AUTH}`,
      },
    },
  ];
}
