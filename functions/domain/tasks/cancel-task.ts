import { TaskNotCancelableError } from '../shared/errors';
import { ownTask } from './get-task';
import { withProgress, progressOf } from './progress';
import { providerOfTask } from '../providers/choice';
import { narrowTask, type TaskKind, type TaskOfKind } from './task';
import { refundEntry } from './charges';
import { announceEnded, FAILURE_MESSAGES } from './lifecycle/endings';
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
  const task = await ownTask(deps.tasks, partitionId, kind, taskId);
  const refuse = (status: string) =>
    new TaskNotCancelableError(`The ${kind} ${taskId} has already ${status === 'completed' ? 'completed' : 'failed'}: only a processing task can be canceled.`);
  if (task.status !== 'processing' || task.pendingOutputs) throw refuse(task.pendingOutputs ? 'completed' : task.status);

  const clock = deps.clock();
  const now = clock.toISOString();
  const error = { code: 'canceled', message: FAILURE_MESSAGES.canceled } as const;
  const canceled = await deps.tasks.failAndRefund(task, error, refundEntry(task, now, error), now, {
    onlyBeforeOutputs: true,
    progress: progressOf(task, clock),
  });
  const latest = (await deps.tasks.get(partitionId, taskId)) ?? task;
  if (!canceled) throw refuse(latest.pendingOutputs ? 'completed' : latest.status);
  const model = task.params.model;
  deps.telemetry.info('task canceled and refunded', { task_id: taskId, account_id: partitionId, model, credits: task.creditsUsed });
  for (const metric of ['TaskCanceled', 'TaskFailed', 'TaskRefunded'] as const) deps.telemetry.count(metric, { model });
  await announceEnded(deps, latest);

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
