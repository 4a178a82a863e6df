import { providerOfTask, ProviderNotConfiguredError } from '../../providers/choice';
import { type ResultOutcome, ProviderUnavailableError } from '../../providers/provider';
import { MAX_PROCESSING_PROGRESS } from '../progress';
import type { Task } from '../task';
import { move } from '../transitions';
import type { LifecycleDeps } from './deps';
import { logProviderDetail, FAILURE_MESSAGES, failTask } from './endings';

/**
 * While processing, a status request asks the provider before answering. At most one check per
 * task per interval goes upstream; a check that fails leaves the task as it was.
 */
export async function refreshTask(deps: LifecycleDeps, task: Task): Promise<Task> {
  if (task.phase !== 'running' || !task.provider) return task;
  const now = deps.clock();
  // A job that calls back tells us itself: ask only once it has been silent too long. Except
  // while it waits in the provider's queue (a place above 0 reported): providers call back when
  // a job runs and ends, and its place is only seen by asking.
  const waiting = (task.queuePosition ?? 0) > 0;
  const interval = task.provider.callbacks && !waiting ? deps.settings.callbackSilenceMs : deps.settings.checkIntervalMs;
  // The task was just read (consistently): a check within the interval cannot be claimed, so skip the write.
  if (task.lastCheckedAt !== undefined && now.getTime() - Date.parse(task.lastCheckedAt) < interval) return task;
  if (!(await claimCheck(deps, task, now, interval))) return task;

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

/**
 * The right to ask the provider now: one caller per interval, so concurrent polls share one
 * upstream check. The check's instant only; the task keeps its phase.
 */
export function claimCheck(deps: Pick<LifecycleDeps, 'tasks'>, task: Task, now: Date, intervalMs: number): Promise<Task | undefined> {
  const checkedBefore = new Date(now.getTime() - intervalMs).toISOString();
  return move(deps.tasks, task, 'check', { set: { lastCheckedAt: now.toISOString() }, guard: { checkedBefore } });
}

/**
 * A running job's report: more progress, or another place in the provider's queue, is stored
 * with its instant (the estimate's anchor, timing.ts). Progress is never lowered, and an older
 * report never overwrites a newer one; a report that changes nothing writes nothing.
 */
async function noteReport(deps: LifecycleDeps, task: Task, outcome: Extract<ResultOutcome, { type: 'processing' }>): Promise<Task> {
  const reported = outcome.progress === undefined ? task.progress : Math.min(MAX_PROCESSING_PROGRESS, Math.max(0, Math.floor(outcome.progress)));
  const queuePosition = outcome.queuePosition === undefined ? undefined : Math.max(0, Math.floor(outcome.queuePosition));
  const moved = reported > task.progress;
  const requeued = queuePosition !== undefined && queuePosition !== task.queuePosition;
  if (!moved && !requeued) return task;
  const progress = Math.max(reported, task.progress);
  const reportedAt = deps.clock().toISOString();
  const set = { progress, reportedAt, ...(queuePosition !== undefined && { queuePosition }) };
  const guard = { progressBelow: progress + 1, reportedBefore: reportedAt };
  return (await move(deps.tasks, task, 'progress', { set, guard })) ?? { ...task, progress };
}

/** Moves a task on by what the provider said (a poll's answer or a callback), with the same conditional transitions. */
export async function applyOutcome(deps: LifecycleDeps, task: Task, outcome: ResultOutcome): Promise<Task> {
  switch (outcome.type) {
    case 'processing':
      return noteReport(deps, task, outcome);
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
      const storing = await move(deps.tasks, task, 'outputs', { at: deps.clock().toISOString(), set: { pendingOutputs: outcome.outputUrls } });
      if (!storing) return (await deps.tasks.get(task.partitionId, task.taskId)) ?? task;
      try {
        await deps.copyQueue.enqueue({ accountId: task.partitionId, taskId: task.taskId });
      } catch (error) {
        // The outputs are recorded: the sweeper copies them within a minute.
        deps.telemetry.warn('copy request failed', { task_id: task.taskId, error: String(error) });
      }
      return storing;
    }
  }
}
