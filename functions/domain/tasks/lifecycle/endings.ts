import { refundEntry } from '../charges';
import { progressOf } from '../progress';
import type { Task, TaskError } from '../task';
import { move, type FailureEvent, type TaskPatch } from '../transitions';
import type { LifecycleDeps } from './deps';
import type { PreparedEndings } from '../ports';

/** A failure event's patch: the error, the progress it showed when it ended, the refund. */
export function failure(task: Task, error: TaskError, now: Date): TaskPatch {
  const at = now.toISOString();
  return {
    at,
    set: { error: { code: error.code, message: error.message }, completedAt: at, progress: progressOf(task, now) },
    remove: ['pendingOutputs'],
    refund: refundEntry(task, at, error),
  };
}

/**
 * Fails a task and refunds it, exactly once however many callers race; returns the latest task.
 * `event` says from which phases (transitions.ts): `lose` only while no job is recorded.
 */
export async function failTask(
  deps: Pick<LifecycleDeps, 'tasks' | 'clock' | 'telemetry' | 'events'>,
  task: Task,
  error: TaskError,
  event: Exclude<FailureEvent, 'cancel'> = 'fail',
): Promise<Task> {
  const ended = await move(deps.tasks, task, event, failure(task, error, deps.clock()));
  if (ended) {
    // Only the caller whose transaction won reports it, so each failure counts once.
    const model = task.params.model;
    deps.telemetry.info('task failed and refunded', {
      task_id: task.taskId,
      account_id: task.partitionId,
      model,
      code: error.code,
      credits: task.creditsUsed,
    });
    deps.telemetry.count('TaskFailed', { model });
    deps.telemetry.count('TaskRefunded', { model });
    return announceEnded(deps, ended);
  }
  return (await deps.tasks.get(task.partitionId, task.taskId)) ?? task;
}

/**
 * Publishes an ended task's events, then takes it out of the outbox. When its feed entry is its
 * whole publication (no endpoint wants it), the entry is written with the announce in one step.
 * A failure leaves it in the outbox: the sweeper publishes it on its next run (events are keyed
 * by task, so a repeat is harmless). `prepared`: the publication's reads, made ahead (a cancel).
 * The task as stored after it (announced, or as given when it is still in the outbox).
 */
export async function announceEnded(
  deps: Pick<LifecycleDeps, 'tasks' | 'telemetry' | 'events'>,
  task: Task,
  prepared?: Promise<PreparedEndings>,
): Promise<Task> {
  try {
    const ahead = await (prepared ?? deps.events.prepare?.(task.partitionId));
    const feedEntry = ahead?.quietEntry(task);
    if (!feedEntry) await (ahead ?? deps.events).ended(task);
    const patch: TaskPatch = {
      announced: true,
      ...(feedEntry && { feedEntry }),
      // A delivery read goes to its own list (the sweeper's) only while it still is one.
      ...(task.phase === 'delivering' && { guard: { stillDelivering: true } }),
    };
    return (await move(deps.tasks, task, 'announce', patch)) ?? task;
  } catch (error) {
    deps.telemetry.warn('task events not published yet; the sweeper retries', { task_id: task.taskId, error: String(error) });
    return task;
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
