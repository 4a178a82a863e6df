import type { VideoParams, ImageParams } from '../catalogue/params';
import type { Phase, TaskStatus } from './phase';
import type { Attribution } from './attribution';
import type { Delivery, DeliveryRequest } from './destinations';

/**
 * Generation tasks. A video task and an image task share one lifecycle (docs/tasks.md): one
 * `phase` at a time (phase.ts), moved only by the events of transitions.ts; the public status
 * (`processing -> completed` or `processing -> failed`) follows from it, and a final task never
 * changes again.
 */
export type TaskKind = 'video' | 'image';
export { TASK_STATUSES, type TaskStatus } from './phase';
export const TASK_ERROR_CODES = ['upstream_error', 'content_rejected', 'timeout', 'internal_error', 'canceled'] as const;
export type TaskErrorCode = (typeof TASK_ERROR_CODES)[number];

export interface TaskError {
  code: TaskErrorCode;
  message: string;
}

interface TaskBase extends Attribution, DeliveryRequest {
  taskId: string;
  partitionId: string;
  /**
   * Position in the account's history of this kind (1, 2, ...): the key of history pages. 0 on
   * a draft, a task whose start is not settled yet (never shown: its id is not given out).
   */
  seq: number;
  /** Where the task is in its lifecycle (phase.ts); `status` is `statusOf(phase)`. */
  phase: Phase;
  status: TaskStatus;
  creditsUsed: number;
  /**
   * 0-100, stored as last known: the provider's own figure or the estimate when the task
   * failed. What a caller sees while processing is `progressOf` (progress.ts).
   */
  progress: number;
  /** The jobs ahead of this one at the provider, as it last reported them (0: running); absent until it does. */
  queuePosition?: number;
  /** When the provider last reported progress or a queue position (the estimate's anchor, timing.ts). */
  reportedAt?: string;
  /**
   * How long it should still take, computed when the task is read (timing.ts), never stored:
   * processing tasks only.
   */
  timing?: TaskTiming;
  /** Set once the provider accepted the job (or a callback naming the task adopted it). */
  provider?: ProviderJob;
  /**
   * While the task waits its turn on the submission queue (nothing sent upstream yet): since
   * when. Absent on a task with no job: a create went out and its answer is awaited or lost.
   */
  queuedAt?: string;
  /** When the last create for this task went out (absent: at `createdAt`, the inline submit). */
  sentAt?: string;
  /**
   * True while no create for this task can have reached the provider: set when it is started
   * (and whenever it goes back on the queue), cleared by the conditional write just before a
   * create is sent (`sentAt`). A task with no job and no such mark may have a job upstream.
   */
  unsent?: true;
  /** Creates refused for load (429, 5xx) so far; the queue's backoff grows with it. */
  submitAttempts?: number;
  /** When the provider was last asked about this task (polls within 2 s reuse it). */
  lastCheckedAt?: string;
  /** The provider's result URLs, waiting to be copied into our storage. */
  pendingOutputs?: string[];
  /** When the copy now at work took the pending outputs (one copy at a time, for a lease). */
  copyClaimedAt?: string;
  copyAttempts: number;
  /** Our copies of the results (completed only). */
  outputUrls?: string[];
  /** A completed video's first frame as a JPEG, in our storage; absent if it could not be made. */
  thumbnailUrl?: string;
  error?: TaskError;
  /**
   * The API key this task was started through and the month (`yyyy-mm`, UTC) its charge counts
   * in against the key's spend (key-spend.ts), and the end user's spend through that key when
   * it names one: its refund gives the credits back to both.
   */
  chargedTo?: { keyId: string; month: string; endUser?: string };
  /**
   * Its charge was counted in the usage roll-ups (domain/usage/cells.ts) by its start, so its
   * refund is counted there too. Absent on tasks started before the roll-ups existed.
   */
  usageCounted?: true;
  createdAt: string;
  updatedAt: string;
  completedAt?: string;
  /**
   * The PUT of the outputs to the start's destination (destinations.ts): pending from the start,
   * delivered or failed once it ends. `destination` is removed when it ends (it is a credential).
   */
  delivery?: Delivery;
  /** When its outputs were deleted (DELETE, retention): from then on the view has no result URLs. */
  outputDeletedAt?: string;
  /**
   * Ended, and its events not published yet (the outbox): set by the ending, cleared by `announce`.
   * A move out of `completed` waits for it to clear (transitions.ts, guard `announced`).
   */
  unannounced?: true;
}

/** A processing task's place and expected end, as read now (timing.ts). */
export interface TaskTiming {
  /** Tasks ahead of this one before it runs (ours or the provider's queue); 0 once running; null: unknown. */
  queuePosition: number | null;
  /** When it should complete, from recent durations of its model on its provider; null without history. */
  estimatedCompletionAt: string | null;
}

export interface ProviderJob {
  name: string;
  jobId: string;
  /** The job reports back to our callback route: polls upstream are only the safety net. */
  callbacks?: boolean;
}

export interface VideoTask extends TaskBase {
  kind: 'video';
  params: VideoParams;
}

export interface ImageTask extends TaskBase {
  kind: 'image';
  params: ImageParams;
}

export type Task = VideoTask | ImageTask;

/** The task type of one kind: `TaskOfKind<'video'>` is `VideoTask`. */
export type TaskOfKind<K extends TaskKind> = Extract<Task, { kind: K }>;

export function isTaskOfKind<K extends TaskKind>(task: Task, kind: K): task is TaskOfKind<K> {
  return task.kind === kind;
}

/** The task as the kind its caller asked for; a task of another kind here is a bug, not a 404. */
export function narrowTask<K extends TaskKind>(task: Task, kind: K): TaskOfKind<K> {
  if (!isTaskOfKind(task, kind)) throw new Error(`Task ${task.taskId} is a ${task.kind} task, not a ${kind} task.`);
  return task;
}
