import type { TaskRef } from './ports';
import { announceEnded, FAILURE_MESSAGES, failTask } from './lifecycle/endings';
import { IN_FLIGHT_PHASES, type InFlightPhase, type Phase } from './phase';
import { purgeOutputs } from './output-deletion';
import { DELIVERY_ROW, SWEEP_TABLE, SWEPT_LISTS, type SweepCounts } from './sweep-table';
import { type LifecycleDeps } from './lifecycle/deps';

export interface SweepReport extends SweepCounts {
  examined: number;
  timedOut: number;
  /** Starts cut short: positions settled, or legacy drafts refunded or discarded. */
  repairedStarts: number;
  /** Ended tasks whose webhook events had not been published (a publication cut short). */
  announced: number;
  /** Deleted outputs whose removal was cut short, removed now. */
  purged: number;
  errors: number;
}

export interface SweepOptions {
  /** Tasks handled at once (each mostly waits on DynamoDB or the provider). */
  concurrency?: number;
  /** Stop picking up tasks after this long, so one run ends before the next minute's starts. */
  budgetMs?: number;
}

const DEFAULT_CONCURRENCY = 16;
const RUN_BUDGET_MS = 45_000;
/**
 * A draft (seq 0) older than this belongs to a start that can no longer be running: functions
 * time out after at most 28 s and every AWS call is bounded well below that.
 */
export const START_GRACE_MS = 2 * 60_000;
/** A task `deleting` this long belongs to a DELETE (or an expiry) that can no longer be running. */
export const DELETING_GRACE_MS = 60_000;
const inFlight = (phase: Phase): phase is InFlightPhase | 'draft' => phase === 'draft' || (IN_FLIGHT_PHASES as readonly Phase[]).includes(phase);
/**
 * The safety net, run every minute: fails and refunds tasks past the timeout, settles starts cut
 * short, and otherwise runs the row of each task's phase (sweep-table.ts: lost creates refunded,
 * stranded ones queued, lost queue messages resent, silent jobs refreshed, waiting copies asked
 * for again, stalled deliveries queued again). It reads every in-flight list (each phase's, and the tasks not moved since their
 * start), every shard at once, and works on `concurrency` tasks at a time until the lists or its
 * budget run out.
 */
export async function sweep(deps: LifecycleDeps, options: SweepOptions = {}): Promise<SweepReport> {
  const report: SweepReport = {
    examined: 0,
    refreshed: 0,
    copied: 0,
    timedOut: 0,
    lostSubmissions: 0,
    requeued: 0,
    resumed: 0,
    redelivered: 0,
    repairedStarts: 0,
    announced: 0,
    purged: 0,
    errors: 0,
  };
  const stopAt = deps.realTime() + (options.budgetMs ?? RUN_BUDGET_MS);
  const work = interleave(SWEPT_LISTS.flatMap((list) => deps.tasks.listInFlight(list)));
  await Promise.all(
    Array.from({ length: options.concurrency ?? DEFAULT_CONCURRENCY }, async () => {
      while (deps.realTime() <= stopAt) {
        const next = await work.next();
        if (next.done) return;
        report.examined += 1;
        try {
          await sweepOne(deps, next.value, report);
        } catch (error) {
          report.errors += 1;
          deps.telemetry.error('sweep failed for task', error, { task_id: next.value.taskId });
        }
      }
    }),
  );
  await work.return(undefined);

  // The outbox: normally empty, as every ending publishes its own events at once.
  const ended = interleave(deps.tasks.listUnannounced());
  while (deps.realTime() <= stopAt) {
    const next = await ended.next();
    if (next.done) break;
    const task = await deps.tasks.get(next.value.accountId, next.value.taskId);
    if (!task || task.status === 'processing') continue;
    await announceEnded(deps, task);
    report.announced += 1;
  }
  await ended.return(undefined);
  return report;
}

/** One item from each shard in turn; every shard is read at the same time (concurrent `next` calls queue). */
async function* interleave<T>(sources: AsyncIterable<T>[]): AsyncGenerator<T> {
  const iterators = sources.map((source) => source[Symbol.asyncIterator]());
  const pending = iterators.map((iterator) => iterator.next());
  let active = iterators.map((_, index) => index);
  while (active.length > 0) {
    const results = await Promise.all(active.map((index) => pending[index]!));
    const stillActive: number[] = [];
    for (const [position, index] of active.entries()) {
      const result = results[position]!;
      if (result.done) continue;
      stillActive.push(index);
      pending[index] = iterators[index]!.next();
      yield result.value;
    }
    active = stillActive;
  }
}

async function sweepOne(deps: LifecycleDeps, listed: TaskRef, report: SweepReport): Promise<void> {
  // The index is eventually consistent: decide on a fresh, strongly consistent read, by the phase read.
  const task = await deps.tasks.get(listed.accountId, listed.taskId);
  if (!task) return;
  const now = deps.clock().getTime();
  if (task.phase === 'deleting') {
    // Its removal was cut short (or failed): done again, after the grace its own request has.
    if (now - Date.parse(task.updatedAt) > DELETING_GRACE_MS) {
      await purgeOutputs(deps, task);
      report.purged += 1;
    }
    return;
  }
  if (task.phase === 'delivering') {
    // Completed: no timeout applies; only a lost message is repaired.
    if (now > DELIVERY_ROW.dueAfter(deps, task)) {
      report.redelivered += 1;
      await DELIVERY_ROW.repair(deps, task);
    }
    return;
  }
  if (!inFlight(task.phase)) return;
  const age = now - Date.parse(task.createdAt);
  if (task.phase === 'draft') {
    if (age > START_GRACE_MS) {
      const outcome = await deps.tasks.repairStart(task, { code: 'internal_error', message: FAILURE_MESSAGES.internal_error }, new Date(now).toISOString());
      if (outcome !== 'settled') report.repairedStarts += 1;
    }
    return;
  }
  // A start cut short between its transaction and its settle: the positions it allocated go on
  // the task and its charge (idempotent; the request's own settle may race it).
  const settled = task.seq === 0 && age > START_GRACE_MS ? await deps.tasks.settlePositions(task) : task;
  if (settled !== task) report.repairedStarts += 1;
  if (age > deps.settings.taskTimeoutMs) {
    report.timedOut += 1;
    await failTask(deps, settled, { code: 'timeout', message: FAILURE_MESSAGES.timeout }, 'timeout');
    return;
  }
  const row = SWEEP_TABLE[task.phase];
  if (now <= row.dueAfter(deps, settled)) return;
  report[row.counted] += 1;
  await row.repair(deps, settled);
}
