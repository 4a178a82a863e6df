import { FAILURE_MESSAGES, failTask, refreshTask, type LifecycleDeps } from './task-lifecycle';
import type { Task } from './task';

export interface SweepReport {
  examined: number;
  refreshed: number;
  copied: number;
  timedOut: number;
  lostSubmissions: number;
  errors: number;
}

/** Tasks examined per run; the rest wait for the next minute. */
const BATCH = 200;
/** Stop picking up tasks after this long, so one run ends before the next minute's starts. */
const RUN_BUDGET_MS = 45_000;
/** A task not checked for this long is refreshed by the sweeper even if nobody polls it. */
const STALE_CHECK_MS = 30_000;

/**
 * The safety net, run every minute: fails and refunds tasks past the timeout or lost between
 * charge and submission, copies results that are waiting, and refreshes tasks nobody polls.
 */
export async function sweep(deps: LifecycleDeps): Promise<SweepReport> {
  const report: SweepReport = { examined: 0, refreshed: 0, copied: 0, timedOut: 0, lostSubmissions: 0, errors: 0 };
  const tasks = await deps.tasks.listProcessing(BATCH);
  const stopAt = Date.now() + RUN_BUDGET_MS;
  for (const task of tasks) {
    if (Date.now() > stopAt) break;
    report.examined += 1;
    try {
      await sweepOne(deps, task, report);
    } catch (error) {
      report.errors += 1;
      deps.telemetry.error('sweep failed for task', error, { task_id: task.taskId });
    }
  }
  return report;
}

async function sweepOne(deps: LifecycleDeps, listed: Task, report: SweepReport): Promise<void> {
  // The index is eventually consistent: decide on a fresh, strongly consistent read.
  const task = await deps.tasks.get(listed.accountId, listed.taskId);
  if (!task || task.status !== 'processing') return;
  const now = deps.clock().getTime();
  const age = now - Date.parse(task.createdAt);
  if (age > deps.settings.taskTimeoutMs) {
    report.timedOut += 1;
    await failTask(deps, task, { code: 'timeout', message: FAILURE_MESSAGES.timeout });
    return;
  }
  if (!task.provider) {
    if (age > deps.settings.submissionGraceMs) {
      report.lostSubmissions += 1;
      // Only if its submission has still not been recorded: a late one wins.
      await failTask(deps, task, { code: 'internal_error', message: FAILURE_MESSAGES.internal_error }, { onlyIfUnsubmitted: true });
    }
    return;
  }
  if (task.pendingOutputs) {
    // The copy worker does the (possibly long) download; the sweeper only asks again.
    report.copied += 1;
    await deps.copyQueue.enqueue({ accountId: task.accountId, taskId: task.taskId });
    return;
  }
  const lastChecked = task.lastCheckedAt ? Date.parse(task.lastCheckedAt) : 0;
  if (now - lastChecked > STALE_CHECK_MS) {
    report.refreshed += 1;
    await refreshTask(deps, task);
  }
}
