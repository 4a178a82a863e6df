import { TaskNotCancelableError } from '../shared/errors';
import { isTaskId, notFound, owned } from './get-task';
import { withProgress } from './progress';
import { providerOfTask } from '../providers/choice';
import { narrowTask, type TaskKind, type TaskOfKind } from './task';
import { announceEnded, FAILURE_MESSAGES, failure } from './lifecycle/endings';
import { move } from './transitions';
import { type LifecycleDeps } from './lifecycle/deps';

/**
 * Cancels a processing task: it fails with `canceled` and is refunded, exactly once, in the same
 * conditional transaction every other failure uses; then the upstream job is asked to stop.
 * A cancel racing completion has one outcome: once the provider's result is recorded the task
 * completes and the cancel is refused (409), and a task canceled first never gets a result.
 */
export async function cancelTask<K extends TaskKind>(
  deps: LifecycleDeps,
  partitionId: string,
  kind: K,
  taskId: string,
): Promise<TaskOfKind<K>> {
  // An id we never issue cannot exist: the same 404, and nothing read.
  if (!isTaskId(taskId)) throw notFound(kind, taskId);
  // One round (design 32, 5.6): the task with the account's ledger count, and what publishing its ending reads.
  const prepared = deps.events.prepare?.(partitionId);
  void prepared?.catch(() => undefined); // awaited by announceEnded; a refused cancel does not need it
  const { task: stored, ledgerSeen } = await deps.tasks.getForRefund(partitionId, taskId);
  const task = owned(stored, kind, taskId);
  const refuse = (status: string) =>
    new TaskNotCancelableError(`The ${kind} ${taskId} has already ${status === 'completed' ? 'completed' : 'failed'}: only a processing task can be canceled.`);
  // Once its outputs are recorded (storing) a task completes: it counts as completed here.
  if (task.status !== 'processing' || task.pendingOutputs) throw refuse(task.pendingOutputs ? 'completed' : task.status);

  const ending = failure(task, { code: 'canceled', message: FAILURE_MESSAGES.canceled }, deps.clock());
  const canceled = await move(deps.tasks, task, 'cancel', { ...ending, ...(ledgerSeen !== undefined && { ledgerSeen }) });
  if (!canceled) {
    const latest = (await deps.tasks.get(partitionId, taskId)) ?? task;
    throw refuse(latest.pendingOutputs ? 'completed' : latest.status);
  }
  const model = task.params.model;
  deps.telemetry.info('task canceled and refunded', { task_id: taskId, account_id: partitionId, model, credits: task.creditsUsed });
  for (const metric of ['TaskCanceled', 'TaskFailed', 'TaskRefunded'] as const) deps.telemetry.count(metric, { model });
  const latest = await announceEnded(deps, canceled, prepared);

  if (task.provider) {
    try {
      await providerOfTask(deps, task).cancel(task.provider.jobId);
    } catch (error) {
      // Best effort: the task is canceled and refunded either way; a job that runs on is not ours to bill.
      deps.telemetry.warn('upstream cancel failed', { task_id: taskId, error: String(error) });
    }
  }
  return withProgress(narrowTask(latest, kind), deps.clock());
}
