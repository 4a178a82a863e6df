import type { CircuitBreaker } from '../../providers/circuit-breaker';
import { refundEntry } from '../../accounts/ledger';
import type { ProviderRoutes } from '../../providers/routing';
import { OutputRefusedError } from '../../catalogue/media-type';
import type { GenerationJob, GenerationProvider, ResultOutcome } from '../../providers/provider';
import { ProviderUnavailableError } from '../../providers/provider';
import type {
  CopyQueue,
  CopyRequest,
  FailOptions,
  MediaStore,
  MessageQueue,
  ProviderBudget,
  SubmissionRequest,
  TaskEvents,
  TaskStore,
  Thumbnails,
} from '../../ports';
import { MAX_PROCESSING_PROGRESS, progressOf } from '../progress';
import { providerOfTask, ProviderNotConfiguredError } from '../../providers/choice';
import type { Task, TaskError } from '../task';
import type { Telemetry } from '../../shared/telemetry';

/**
 * What happens to a task after it was started: asking the provider, copying results into
 * our storage, completing or failing (with its refund). Shared by status polls, the copy
 * worker and the sweeper, for videos and images alike.
 */
export interface LifecycleDeps {
  tasks: TaskStore;
  provider: GenerationProvider;
  /** Test-mode tasks' provider (simulated); pick one with provider-choice.ts. */
  testProvider?: GenerationProvider;
  /** The other providers still configured, by name: tasks that recorded one are followed there. */
  otherProviders?: (name: string) => GenerationProvider | undefined;
  /** Per model, the providers a new live task's create may go to, in order (provider-routing.ts). */
  routes?: ProviderRoutes;
  /** Each provider's circuit breaker, shared by every function; unset: every route is always tried. */
  circuits?: CircuitBreaker;
  media: MediaStore;
  /** Makes a completed video's poster (ffmpeg); without it videos complete with no thumbnail. */
  thumbnails?: Thumbnails;
  copyQueue: CopyQueue;
  clock: () => Date;
  settings: LifecycleSettings;
  /** Where a task's ending is published (webhooks), at least once. */
  events: TaskEvents;
  telemetry: Telemetry;
  /** Turns for calls to a paced provider, shared by every function. */
  budget: ProviderBudget;
  /** Creates that wait for a turn (SQS on AWS, in process locally). */
  submissions: MessageQueue<SubmissionRequest>;
  /**
   * Our callback route for a task's job at a provider, with the token that binds it to the task;
   * undefined: no callbacks, polls only.
   */
  callbackUrl?: (task: Task, provider: string, token: string) => string;
}

export interface LifecycleSettings {
  /** Polls within this long of the last upstream check reuse it (2 s by default). */
  checkIntervalMs: number;
  /** A task still processing after this long fails with `timeout` (default 30 min). */
  taskTimeoutMs: number;
  /**
   * A task with no provider job this long after its create went out (timed out, or cut short)
   * gets no callback adopting a job any more: it is failed and refunded.
   */
  submissionGraceMs: number;
  /** Creates a second each paced provider allows us, by provider name; others are not paced. */
  providerBudgets: Readonly<Record<string, number>>;
  /** A start waits at most this long for a turn before its create goes on the queue instead. */
  inlineTurnWaitMs: number;
  /** The queue's consumer waits at most this long for a turn before putting a message back. */
  queuedTurnWaitMs: number;
  /** A copy of a request waits at most this long for the first one's answer under its Idempotency-Key. */
  earlierAnswerWaitMs: number;
  /**
   * How long a copy of a task's outputs keeps its claim: another copy asked for meanwhile (the
   * sweeper's) leaves the task to it. Longer than the copy worker may run (5 min on AWS).
   */
  copyLeaseMs: number;
  /** A job that calls back is asked about only after this long without news (a lost callback). */
  callbackSilenceMs: number;
  /** Failed copies of a result before the task gives up and fails (refunded). */
  maxCopyAttempts: number;
}

export const DEFAULT_LIFECYCLE_SETTINGS: LifecycleSettings = {
  checkIntervalMs: 2_000,
  taskTimeoutMs: 30 * 60_000,
  // Long enough for a job's first callback even when the provider queues it a while.
  submissionGraceMs: 10 * 60_000,
  maxCopyAttempts: 5,
  copyLeaseMs: 6 * 60_000,
  providerBudgets: {},
  inlineTurnWaitMs: 1_000,
  queuedTurnWaitMs: 5_000,
  // Most starts answer within a second or two; a few seconds of slack, well inside the 28 s a function has.
  earlierAnswerWaitMs: 10_000,
  callbackSilenceMs: 2 * 60_000,
};

/** Fails a task and refunds it, exactly once however many callers race; returns the latest task. */
export async function failTask(
  deps: Pick<LifecycleDeps, 'tasks' | 'clock' | 'telemetry' | 'events'>,
  task: Task,
  error: TaskError,
  options: Omit<FailOptions, 'progress'> = {},
): Promise<Task> {
  const clock = deps.clock();
  const now = clock.toISOString();
  // A failed task keeps the progress it showed when it ended.
  if (await deps.tasks.failAndRefund(task, error, refundEntry(task, now, error), now, { ...options, progress: progressOf(task, clock) })) {
    // Only the caller whose transaction won reports it, so each failure counts once.
    const model = task.params.model;
    deps.telemetry.info('task failed and refunded', {
      task_id: task.taskId,
      account_id: task.accountId,
      model,
      code: error.code,
      credits: task.creditsUsed,
    });
    deps.telemetry.count('TaskFailed', { model });
    deps.telemetry.count('TaskRefunded', { model });
    const ended = await deps.tasks.get(task.accountId, task.taskId);
    if (ended) await announceEnded(deps, ended);
    return ended ?? task;
  }
  return (await deps.tasks.get(task.accountId, task.taskId)) ?? task;
}

/**
 * Publishes an ended task's events, then takes it out of the outbox. A failure leaves it there:
 * the sweeper publishes it on its next run (events are keyed by task, so a repeat is harmless).
 */
export async function announceEnded(deps: Pick<LifecycleDeps, 'tasks' | 'telemetry' | 'events'>, task: Task): Promise<void> {
  try {
    await deps.events.taskEnded(task);
    await deps.tasks.markAnnounced(task);
  } catch (error) {
    deps.telemetry.warn('task events not published yet; the sweeper retries', { task_id: task.taskId, error: String(error) });
  }
}

/**
 * What a client reads in `error.message`: our words for each code. The provider's own text
 * (which may name the vendor or leak internals) goes to the logs only.
 */
export const FAILURE_MESSAGES: Record<TaskError['code'], string> = {
  upstream_error: 'The generation provider could not produce a result. Your credits were refunded.',
  content_rejected: 'The provider refused the prompt or image under its content policy. Your credits were refunded.',
  timeout: 'The task did not finish in time. Your credits were refunded.',
  internal_error: 'The task could not be submitted for generation. Your credits were refunded.',
  canceled: 'The task was canceled. Your credits were refunded.',
};

/** A refusal or failure upstream is expected now and then: a warning with the provider's words. */
export function logProviderDetail(deps: Pick<LifecycleDeps, 'telemetry'>, task: Task, detail: string): void {
  deps.telemetry.warn('provider failure', { task_id: task.taskId, model: task.params.model, detail });
}

/**
 * While processing, a status request asks the provider before answering. At most one check per
 * task per interval goes upstream; a check that fails leaves the task as it was.
 */
export async function refreshTask(deps: LifecycleDeps, task: Task): Promise<Task> {
  if (task.status !== 'processing' || !task.provider || task.pendingOutputs) return task;
  const now = deps.clock();
  // A job that calls back tells us itself: ask only once it has been silent too long.
  const interval = task.provider.callbacks ? deps.settings.callbackSilenceMs : deps.settings.checkIntervalMs;
  // The task was just read (consistently): a check within the interval cannot be claimed, so skip the write.
  if (task.lastCheckedAt !== undefined && now.getTime() - Date.parse(task.lastCheckedAt) < interval) return task;
  if (!(await deps.tasks.claimCheck(task, now, interval))) return task;

  let outcome: ResultOutcome;
  try {
    outcome = await providerOfTask(deps, task).fetchResult(task.provider.jobId);
  } catch (error) {
    if (error instanceof ProviderUnavailableError) return task;
    if (error instanceof ProviderNotConfiguredError) {
      // Left as it is: the sweeper times it out and refunds it.
      deps.telemetry.warn('task provider not configured; the task waits for its timeout', { task_id: task.taskId, provider: error.providerName });
      deps.telemetry.count('ProviderNotConfigured', { model: task.params.model });
      return task;
    }
    throw error;
  }
  return applyOutcome(deps, task, outcome);
}

/** Moves a task on by what the provider said (a poll's answer or a callback), with the same conditional transitions. */
export async function applyOutcome(deps: LifecycleDeps, task: Task, outcome: ResultOutcome): Promise<Task> {
  switch (outcome.type) {
    case 'processing':
      if (outcome.progress !== undefined && outcome.progress > task.progress) {
        const progress = Math.min(MAX_PROCESSING_PROGRESS, Math.max(0, Math.floor(outcome.progress)));
        await deps.tasks.recordProgress(task, progress);
        return { ...task, progress };
      }
      return task;
    case 'failed': {
      logProviderDetail(deps, task, outcome.message);
      const message = outcome.publicMessage
        ? `${outcome.publicMessage} Your credits were refunded.`
        : FAILURE_MESSAGES[outcome.code];
      return failTask(deps, task, { code: outcome.code, message });
    }
    case 'completed': {
      if (outcome.outputUrls.length === 0) {
        logProviderDetail(deps, task, 'completed without output');
        return failTask(deps, task, { code: 'upstream_error', message: FAILURE_MESSAGES.upstream_error });
      }
      // Provider URLs expire: keep the task processing until our copy exists.
      if (await deps.tasks.recordOutputs(task, outcome.outputUrls, deps.clock().toISOString())) {
        try {
          await deps.copyQueue.enqueue({ accountId: task.accountId, taskId: task.taskId });
        } catch (error) {
          // The outputs are recorded: the sweeper copies them within a minute.
          deps.telemetry.warn('copy request failed', { task_id: task.taskId, error: String(error) });
        }
      }
      return (await deps.tasks.get(task.accountId, task.taskId)) ?? task;
    }
  }
}

const EXTENSIONS: Record<string, { ext: string; contentType: string }> = {
  video: { ext: 'mp4', contentType: 'video/mp4' },
  png: { ext: 'png', contentType: 'image/png' },
  jpg: { ext: 'jpg', contentType: 'image/jpeg' },
  webp: { ext: 'webp', contentType: 'image/webp' },
};

/** Where a video's first frame goes: next to the video, under the same rules. */
const thumbnailKey = (task: Task) => `videos/${task.taskId}.jpg`;

/**
 * A video's poster, made from our copy. Any failure (an undecodable video, ffmpeg missing or
 * slow) leaves the video without one: a thumbnail never fails the task.
 */
async function makeThumbnail(deps: LifecycleDeps, task: Task): Promise<string | undefined> {
  if (task.kind !== 'video' || !deps.thumbnails) return undefined;
  try {
    return await deps.thumbnails.firstFrame(outputFile(task, 0).key, thumbnailKey(task));
  } catch (error) {
    deps.telemetry.warn('thumbnail not made; the video completes without one', { task_id: task.taskId, error: String(error) });
    deps.telemetry.count('ThumbnailFailed', { model: task.params.model });
    return undefined;
  }
}

function outputFile(task: Task, index: number) {
  const format = task.kind === 'video' ? EXTENSIONS.video! : EXTENSIONS[task.params.outputFormat]!;
  const folder = task.kind === 'video' ? 'videos' : 'images';
  const suffix = task.kind === 'video' ? '' : `-${index + 1}`;
  return { key: `${folder}/${task.taskId}${suffix}.${format.ext}`, contentType: format.contentType };
}

/**
 * Copies a task's pending provider outputs into our bucket, then completes it. A failed copy
 * is counted and retried later (copy worker, sweeper); after `maxCopyAttempts` the task fails
 * and is refunded. A copy asked for while another holds the task's claim leaves it to that one.
 */
export async function copyOutputs(deps: LifecycleDeps, task: Task): Promise<Task> {
  if (task.status !== 'processing' || !task.pendingOutputs) return task;
  // One copy at a time: a second one would write the same keys while the first reads them back
  // for the thumbnail (s3rver's overwrite removes the object first; on S3 it is wasted work).
  if (!(await deps.tasks.claimCopy(task, deps.clock(), deps.settings.copyLeaseMs))) return (await deps.tasks.get(task.accountId, task.taskId)) ?? task;
  try {
    const urls: string[] = [];
    for (const [index, sourceUrl] of task.pendingOutputs.entries()) {
      const { key, contentType } = outputFile(task, index);
      urls.push(await deps.media.copyFromUrl(sourceUrl, key, contentType, task.kind));
    }
    const thumbnailUrl = await makeThumbnail(deps, task);
    if (await deps.tasks.complete(task, urls, deps.clock().toISOString(), thumbnailUrl)) {
      const model = task.params.model;
      const outputs = urls.length;
      deps.telemetry.info('task completed', { task_id: task.taskId, account_id: task.accountId, model, outputs });
      deps.telemetry.count('TaskCompleted', { model });
      const completed = await deps.tasks.get(task.accountId, task.taskId);
      if (completed) await announceEnded(deps, completed);
    } else if ((await deps.tasks.get(task.accountId, task.taskId))?.status !== 'completed') {
      // The task ended otherwise meanwhile (timed out): its result must not stay published. A
      // concurrent copy that completed it first wrote these very keys: they stay.
      await Promise.all(task.pendingOutputs.map((_, index) => deps.media.remove(outputFile(task, index).key)));
      if (thumbnailUrl) await deps.media.remove(thumbnailKey(task));
    }
  } catch (error) {
    if (error instanceof OutputRefusedError) {
      // Not the provider's file, or not what the task makes: no retry can change that.
      logProviderDetail(deps, task, error.message);
      await Promise.all(task.pendingOutputs.map((_, index) => deps.media.remove(outputFile(task, index).key)));
      return failTask(deps, task, { code: 'upstream_error', message: FAILURE_MESSAGES.upstream_error });
    }
    const attempts = await deps.tasks.recordCopyFailure(task, deps.clock().toISOString());
    deps.telemetry.warn('copy of provider output failed', { task_id: task.taskId, attempts, error: String(error) });
    if (attempts !== undefined && attempts >= deps.settings.maxCopyAttempts) {
      return failTask(deps, task, { code: 'upstream_error', message: FAILURE_MESSAGES.upstream_error });
    }
  }
  return (await deps.tasks.get(task.accountId, task.taskId)) ?? task;
}

/** The copy worker's job: copy one task's waiting outputs (a task gone or final is left alone). */
export async function copyRequested(deps: LifecycleDeps, request: CopyRequest): Promise<void> {
  const task = await deps.tasks.get(request.accountId, request.taskId);
  if (task) await copyOutputs(deps, task);
}

/** The job to send upstream for a task. */
export function jobFor(task: Task): GenerationJob {
  return task.kind === 'video'
    ? { kind: 'video', taskId: task.taskId, ...task.params }
    : { kind: 'image', taskId: task.taskId, ...task.params };
}
