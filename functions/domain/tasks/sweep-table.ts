import type { InFlightList } from './ports';
import { IN_FLIGHT_PHASES, type InFlightPhase } from './phase';
import { QUEUE_STALL_MS, resendQueued, resumeSubmission, UNSENT_GRACE_MS } from './submission';
import { FAILURE_MESSAGES, failTask } from './lifecycle/endings';
import { refreshTask } from './lifecycle/outcomes';
import type { LifecycleDeps } from './lifecycle/deps';
import type { Task } from './task';

/** What a sweep did, by repair. */
export interface SweepCounts {
  refreshed: number;
  copied: number;
  /** Tasks whose create went unanswered and no callback adopted a job in time: refunded. */
  lostSubmissions: number;
  /** Queued creates whose message went missing, sent again. */
  requeued: number;
  /** Charged tasks whose create was never sent and whose submitter was cut short: queued. */
  resumed: number;
  /** Deliveries to the customer's storage whose message went missing, queued again. */
  redelivered: number;
}

/** A task not checked for this long is refreshed by the sweeper even if nobody polls it. */
export const STALE_CHECK_MS = 30_000;
/**
 * A delivery not moved this long past its next attempt (and past any attempt's lease) lost its
 * message (a process cut short before the send, a message gone): queued again. More than SQS's
 * delay may be late by, so a healthy retry is rarely doubled, and a double is harmless: the
 * worker claims each attempt once (delivery.ts, `deliveryAttempts` and the lease).
 */
export const DELIVERY_STALL_MS = 5 * 60_000;

/** One row: from when a task of the phase needs the sweeper, and what it does then. */
export interface SweepRow {
  /** The instant (ms) after which the repair is due. */
  dueAfter(deps: LifecycleDeps, task: Task): number;
  repair(deps: LifecycleDeps, task: Task): Promise<unknown>;
  counted: keyof SweepCounts;
}

const at = (instant: string | undefined) => (instant === undefined ? 0 : Date.parse(instant));

/**
 * The sweeper's safety net per phase (docs/tasks.md, "The sweeper"). Before a row, every task
 * past the task timeout is failed and refunded (`timeout`), and a legacy draft is repaired.
 */
/* prettier-ignore */
export const SWEEP_TABLE: Readonly<Record<InFlightPhase, SweepRow>> = {
  // Charged, never sent, its submitter gone quiet (submission.ts isStranded): nothing upstream can adopt it, so queue it.
  claimed: { dueAfter: (_, t) => at(t.updatedAt) + UNSENT_GRACE_MS, repair: (d, t) => resumeSubmission(d, t), counted: 'resumed' },
  // Waiting its turn: normal, unless its message went missing.
  queued:  { dueAfter: (_, t) => at(t.queuedAt) + QUEUE_STALL_MS, repair: (d, t) => resendQueued(d, t), counted: 'requeued' },
  // Its create may have gone out: the job's callback gets its grace first; a late answer still wins (`lose` needs no job).
  sending: { dueAfter: (d, t) => at(t.sentAt ?? t.createdAt) + d.settings.submissionGraceMs,
             repair: (d, t) => failTask(d, t, { code: 'internal_error', message: FAILURE_MESSAGES.internal_error }, 'lose'), counted: 'lostSubmissions' },
  // Nobody polls it, or its callbacks went silent (refreshTask applies the same rule).
  running: { dueAfter: (d, t) => at(t.lastCheckedAt) + (t.provider?.callbacks ? d.settings.callbackSilenceMs : STALE_CHECK_MS),
             repair: (d, t) => refreshTask(d, t), counted: 'refreshed' },
  // The copy worker does the (possibly long) download; the sweeper only asks again, every run.
  storing: { dueAfter: () => 0, repair: (d, t) => d.copyQueue.enqueue({ accountId: t.partitionId, taskId: t.taskId }), counted: 'copied' },
};

/**
 * A completed task's delivery (delivery.ts): past the task timeout as well (it is completed,
 * never failed), due once it has not moved for DELIVERY_STALL_MS after its next attempt or an
 * attempt's lease, whichever is later. No queue configured: nothing to ask.
 */
export const DELIVERY_ROW: SweepRow = {
  dueAfter: (_, t) => Math.max(at(t.updatedAt), at(t.delivery?.nextAttemptAt), at(t.delivery?.claimedUntil)) + DELIVERY_STALL_MS,
  repair: async (d, t) => {
    if (!d.deliveries) throw new Error('no delivery queue is configured');
    await d.deliveries.send({ accountId: t.partitionId, taskId: t.taskId });
  },
  counted: 'redelivered',
};

/** Every list the sweeper reads: the tasks not moved since their start, then each phase's, then the deliveries and deletions under way. */
export const SWEPT_LISTS: readonly InFlightList[] = ['unmoved', ...IN_FLIGHT_PHASES, 'delivering', 'deleting'];
