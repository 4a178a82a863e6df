import type { Task, TaskTiming } from './task';

/**
 * Where a processing task stands and when it should end (docs/tasks.md, "Queue position and
 * estimate"). The estimate starts from D, the typical start-to-completion time of recent tasks of
 * the same model on the same provider (TaskDurations), and tightens as the provider reports
 * progress: with p% done at instant t, the rest takes about what p% took, weighed against D by p.
 * Our own elapsed-time progress (progress.ts) is never used: that would estimate from itself.
 */

/** The provider's own progress below this says too little to extrapolate from. */
const MIN_REPORTED_PROGRESS = 1;

/**
 * A processing task's timing; undefined once final (final views carry neither field).
 * `ahead`: the tasks before it in our submission queue, when it waits there (queued phase).
 */
export function timingOf(task: Task, typicalMs: number | null, now: Date, ahead: number | null = null): TaskTiming | undefined {
  if (task.status !== 'processing') return undefined;
  const queuePosition = queuePositionOf(task, ahead);
  return { queuePosition, estimatedCompletionAt: typicalMs === null ? null : estimate(task, typicalMs, now, queuePosition) };
}

/** Ahead in our queue, then at the provider's as it reported; 0 once it runs; null when nobody says. */
function queuePositionOf(task: Task, ahead: number | null): number | null {
  switch (task.phase) {
    case 'queued':
      return ahead;
    case 'running':
      return task.queuePosition ?? null;
    case 'storing':
      return 0;
    default:
      // Claimed or sending: a create is going out, and the provider's queue is not known yet.
      return null;
  }
}

function estimate(task: Task, typicalMs: number, now: Date, queuePosition: number | null): string {
  const started = Date.parse(task.createdAt);
  const nowMs = now.getTime();
  let end = started + typicalMs;
  const p = task.progress;
  if (task.phase === 'running' && task.reportedAt !== undefined && p >= MIN_REPORTED_PROGRESS && (queuePosition ?? 0) === 0) {
    const t = Date.parse(task.reportedAt);
    const rest = ((t - started) * (100 - p)) / p;
    const weight = p / 100;
    end = t + weight * rest + (1 - weight) * Math.max(0, started + typicalMs - t);
  } else if (queuePosition !== null && queuePosition > 0) {
    // Each job ahead takes about one typical run before this one starts its own.
    end = Math.max(end, nowMs + typicalMs * (queuePosition + 1));
  }
  return new Date(Math.max(nowMs, Math.round(end))).toISOString();
}

/** The task with its timing as read now (views show it while processing). */
export const withTiming = <T extends Task>(task: T, typicalMs: number | null, now: Date, ahead: number | null = null): T => {
  const timing = timingOf(task, typicalMs, now, ahead);
  return timing ? { ...task, timing } : task;
};
