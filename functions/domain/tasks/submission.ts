import type { ProviderFailureCode } from '../providers/provider';
import type { SubmissionRequest } from './ports';
import { sendCreate, type Create, type FirstRoute } from './routed-create';
import type { Task } from './task';
import { move } from './transitions';
import { FAILURE_MESSAGES, failTask } from './lifecycle/endings';
import { type LifecycleDeps } from './lifecycle/deps';

export { cancelQuietly } from './routed-create';

/**
 * Getting a charged task to the provider (docs/tasks.md, "Submission"): inline while the
 * provider's budget has a turn free, otherwise on the submission queue, whose consumer submits
 * at the budget's pace and backs off while the provider refuses for load. A create whose
 * answer is lost is never refunded blindly: the job's callback names the task and adopts it,
 * and only a task that hears nothing for `submissionGraceMs` is failed and refunded.
 */

/** How an inline submission ended, as POST /generate answers it. */
export type InlineSubmission =
  /**
   * Sent and accepted, queued for later (also when cut short before its create was sent), or
   * sent with its answer lost: 200 `processing`.
   */
  | { type: 'accepted' | 'queued' | 'unknown'; task: Task }
  /** Refused or impossible now: the caller fails and refunds the task, and answers 502. */
  | { type: 'failed'; code: ProviderFailureCode };

/** The longest a queued retry waits, whatever the attempt. */
const MAX_RETRY_DELAY_SECONDS = 60;
/** A queued task that has not been picked up for this long lost its message: the sweeper sends it again. */
export const QUEUE_STALL_MS = 5 * 60_000;

/**
 * POST /generate's submission: now if the budget allows, else on the queue. An error before the
 * create was sent (a DynamoDB timeout) puts the task on the queue instead of failing the request.
 */
export async function submitInline(deps: LifecycleDeps, task: Task, first?: FirstRoute, onAccepted?: () => Promise<void>): Promise<InlineSubmission> {
  try {
    const created = await sendCreate(deps, task, deps.settings.inlineTurnWaitMs, first, onAccepted);
    switch (created.type) {
      case 'waiting':
        return await queued(deps, task, 0, 0);
      case 'accepted':
        return created;
      case 'rejected':
        return { type: 'failed', code: created.code };
      case 'busy':
        return await queued(deps, created.task, 1, retryDelaySeconds(1, created.retryAfterSeconds));
      case 'unavailable':
        return { type: 'failed', code: 'upstream_error' };
      case 'unknown':
        return created;
      case 'taken':
        // Someone else holds it now (a replay, the sweeper): as it stands.
        return { type: 'queued', task: (await deps.tasks.get(task.partitionId, task.taskId)) ?? task };
    }
  } catch (error) {
    // sendCreate raises only before its create is sent: no job can exist.
    deps.telemetry.error('submission cut short before its create was sent; queued instead', error, { task_id: task.taskId });
    return queuedAfterError(deps, task);
  }
}

/** Queues a task whose submitter failed before sending; if that fails too, the sweeper resumes it. */
async function queuedAfterError(deps: LifecycleDeps, task: Task): Promise<InlineSubmission> {
  try {
    return await queued(deps, task, task.submitAttempts ?? 0, 0);
  } catch (error) {
    deps.telemetry.warn('task not queued; the sweeper resumes its submission', { task_id: task.taskId, error: String(error) });
    return { type: 'queued', task };
  }
}

/**
 * How long a charged task may sit unsent before it counts as stranded: long enough that a start
 * still at work (a slow budget turn, a concurrent duplicate of its request) is left to finish,
 * short enough that the sweeper's next run settles one whose start died.
 */
export const UNSENT_GRACE_MS = 30_000;

/**
 * A charged task whose create was never sent and that nobody is submitting: its start or
 * its consumer was cut short between the charge and the create (docs/tasks.md, "Submission").
 */
export function isStranded(task: Task, now: Date): boolean {
  const untouched = now.getTime() - Date.parse(task.updatedAt) > UNSENT_GRACE_MS;
  return task.phase === 'claimed' && untouched;
}

/**
 * Resumes a stranded task's submission through the queue (a replay of its request, the
 * sweeper). Harmless if its submitter is alive after all: whoever writes first wins.
 */
export async function resumeSubmission(deps: LifecycleDeps, task: Task): Promise<Task> {
  return (await queued(deps, task, task.submitAttempts ?? 0, 0)).task;
}

/**
 * The submission queue's consumer: one message, one task. A message delivered twice submits
 * once (the claim on the task is conditional); a task no longer waiting is left alone.
 */
export async function submitQueued(deps: LifecycleDeps, request: SubmissionRequest): Promise<void> {
  const task = await deps.tasks.get(request.accountId, request.taskId);
  if (!task || task.phase !== 'queued') return;
  const claimed = await move(deps.tasks, task, 'claim', { at: deps.clock().toISOString(), remove: ['queuedAt'] });
  if (!claimed) return;
  const attempts = task.submitAttempts ?? 0;
  let created: Create;
  try {
    created = await sendCreate(deps, claimed, deps.settings.queuedTurnWaitMs);
  } catch (error) {
    // Nothing was sent: back in line (if this fails too, the sweeper resumes it within a minute).
    deps.telemetry.error('queued submission cut short before its create was sent', error, { task_id: task.taskId });
    await requeue(deps, claimed, attempts, 1);
    return;
  }
  switch (created.type) {
    case 'accepted':
    case 'unknown':
    case 'taken':
      return;
    case 'waiting':
      // Every turn of the next few seconds is taken: back in line, without counting an attempt.
      await requeue(deps, claimed, attempts, 1);
      return;
    case 'rejected':
      await failTask(deps, task, { code: created.code, message: FAILURE_MESSAGES[created.code] });
      return;
    case 'busy':
    case 'unavailable': {
      const delay = retryDelaySeconds(attempts + 1, created.type === 'busy' ? created.retryAfterSeconds : undefined);
      const deadline = Date.parse(task.createdAt) + deps.settings.taskTimeoutMs;
      if (deps.clock().getTime() + delay * 1000 >= deadline) {
        deps.telemetry.warn('submission retries ran out', { task_id: task.taskId, attempts: attempts + 1 });
        await failTask(deps, task, { code: 'upstream_error', message: FAILURE_MESSAGES.upstream_error });
        return;
      }
      await requeue(deps, created.task, attempts + 1, delay);
    }
  }
}

/** The sweeper's repair of a queued task whose message went missing: send it again. */
export async function resendQueued(deps: LifecycleDeps, task: Task): Promise<void> {
  await deps.submissions.send({ accountId: task.partitionId, taskId: task.taskId });
}

/** Backoff: 2 s, 4 s, 8 s, ... up to a minute, never sooner than the provider asked. */
export function retryDelaySeconds(attempt: number, retryAfterSeconds = 0): number {
  return Math.min(MAX_RETRY_DELAY_SECONDS, Math.max(retryAfterSeconds, 2 ** attempt));
}

async function queued(deps: LifecycleDeps, task: Task, attempts: number, delaySeconds: number): Promise<{ type: 'queued'; task: Task }> {
  // Only a task that changed meanwhile (canceled) needs reading again.
  const latest = (await requeue(deps, task, attempts, delaySeconds)) ?? (await deps.tasks.get(task.partitionId, task.taskId));
  return { type: 'queued', task: latest ?? task };
}

/**
 * Puts a task with no job on the queue: only as the caller saw it (nothing sent since, so only
 * the sender of a refused create re-queues it). The queued task, or undefined if it no longer waits for one.
 */
async function requeue(deps: LifecycleDeps, task: Task, attempts: number, delaySeconds: number): Promise<Task | undefined> {
  const now = deps.clock().toISOString();
  const queuedTask = await move(deps.tasks, task, 'queue', { at: now, set: { queuedAt: now, submitAttempts: attempts }, guard: { sentAt: task.sentAt ?? null } });
  if (!queuedTask) return undefined;
  deps.telemetry.count('SubmissionQueued', { model: task.params.model });
  try {
    await deps.submissions.send({ accountId: task.partitionId, taskId: task.taskId }, { delaySeconds });
  } catch (error) {
    // The task is on the books as queued: the sweeper sends its message again.
    deps.telemetry.warn('submission message not sent; the sweeper resends it', { task_id: task.taskId, error: String(error) });
  }
  return queuedTask;
}
