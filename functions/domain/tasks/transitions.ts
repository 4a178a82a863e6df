import type { LedgerEntry } from '../accounts/ledger';
import { endsTask, isFinal, statusOf, type Phase } from './phase';
import type { TaskStore } from './ports';
import type { Task } from './task';

/**
 * The one table of how a task moves (docs/tasks.md, "Phases"): per event, the phases it may
 * start from and the phase it leaves the task in ('same': a touch that keeps the phase). The
 * store checks the phase and the event's guards in one conditional write, so of racing callers
 * exactly the ones the table admits succeed; a refund goes in the same transaction.
 */

/** What the caller saw and still requires; each becomes one term of the store's condition. */
export interface TransitionGuard {
  /** `sentAt` as read (null: none). Only the sender of a refused create (or a holder that sent nothing) re-queues. */
  sentAt?: string | null;
  /** The same job again is accepted, another is refused. */
  jobId?: string;
  /** Only if nobody asked the provider after this instant. */
  checkedBefore?: string;
  /** Only while the stored progress is below this. */
  progressBelow?: number;
  /** Only if no report of the provider's after this instant is stored (an older one never overwrites a newer). */
  reportedBefore?: string;
  /** Only if no copy holds the outputs since after this instant. */
  copyClaimedBefore?: string;
  /** Only once the task's ending was announced: a move out of `completed` would take it out of the outbox. */
  announced?: true;
  /** Only while the delivery has made exactly this many attempts (0: also none recorded): one outcome per attempt. */
  deliveryAttempts?: number;
  /** Only if no worker holds the delivery past this instant (its lease, `delivery.claimedUntil`, is over). */
  deliveryFree?: string;
  /** Only while it is `delivering`: the announce of a delivery read so lists it for the sweeper, which a delivery ended meanwhile must not be. */
  stillDelivering?: true;
}

/** The task fields an event may set. */
export type TaskPatchFields = Partial<
  Pick<
    Task,
    | 'queuedAt'
    | 'sentAt'
    | 'submitAttempts'
    | 'provider'
    | 'lastCheckedAt'
    | 'progress'
    | 'queuePosition'
    | 'reportedAt'
    | 'pendingOutputs'
    | 'copyClaimedAt'
    | 'outputUrls'
    | 'thumbnailUrl'
    | 'error'
    | 'completedAt'
    | 'outputDeletedAt'
    | 'delivery'
  >
>;

export interface TaskPatch {
  /** A phase change happens at this instant (the new phase's `phaseAt` and `updatedAt`). Absent for a touch. */
  at?: string;
  set?: TaskPatchFields;
  remove?: readonly ('queuedAt' | 'pendingOutputs' | 'copyClaimedAt' | 'outputUrls' | 'thumbnailUrl' | 'destination')[];
  /** One more failed copy (returned in the stored task). */
  countCopyFailure?: true;
  guard?: TransitionGuard;
  /** Failure events: the refund, written with the ending in one transaction. */
  refund?: LedgerEntry;
  /** The task leaves the outbox (its ending was announced). */
  announced?: true;
  /**
   * With `announced`: the ending's event, added to the partition's events feed in the same write,
   * so the task leaves the outbox exactly when its event is in the feed. Skipped when the event
   * is there already (a repeat); a feed that moved past `entry.after` costs a retry, not an error.
   */
  feedEntry?: EndingEntry;
  /**
   * Failure events: the account's ledger count as read alongside the task (TaskStore.getForRefund),
   * so the refund's first try takes the next position without a read of its own.
   */
  ledgerSeen?: number;
}

/** A task ending's event as the events feed keeps it (webhooks/events-feed.ts), and the feed's last position as read. */
export interface EndingEntry {
  eventId: string;
  type: string;
  /** The exact body its webhooks would carry. */
  payload: string;
  createdAt: string;
  after: number;
}

/**
 * The task as a move leaves it, the patch applied: the store's answer when its write hands
 * nothing back (a transaction), and the memory store's write itself.
 */
export function afterMove(stored: Task, to: Phase | 'same', patch: TaskPatch): Task {
  const next = { ...stored, ...structuredClone(patch.set ?? {}) } as Task;
  // Computed when a task is read, never stored (timing.ts): a caller's view may carry it.
  delete next.timing;
  for (const field of patch.remove ?? []) delete next[field];
  if (patch.countCopyFailure) next.copyAttempts += 1;
  if (to !== 'same') {
    if (patch.at === undefined) throw new Error(`A move of task ${stored.taskId} to ${to} needs its instant.`);
    Object.assign(next, { phase: to, status: statusOf(to), updatedAt: patch.at });
    // The `unsent` mark is written with the phases that have it.
    if (to === 'claimed' || to === 'queued') next.unsent = true;
    else if (!isFinal(to)) delete next.unsent;
    if (endsTask(stored.phase, to)) next.unannounced = true;
  }
  if (patch.announced) delete next.unannounced;
  return next;
}

const NO_JOB = ['claimed', 'queued', 'sending'] as const satisfies readonly Phase[];
const BEFORE_OUTPUTS = [...NO_JOB, 'running'] as const satisfies readonly Phase[];
const IN_FLIGHT = [...BEFORE_OUTPUTS, 'storing'] as const satisfies readonly Phase[];

interface Rule {
  from: readonly Phase[];
  to: Phase | 'same';
  /** The event ends the task failed and gives its price back. */
  refund?: true;
  guards?: readonly (keyof TransitionGuard)[];
}

/* prettier-ignore */
export const TRANSITIONS = {                                                       // what the caller's patch carries
  queue:      { from: ['claimed', 'sending'], to: 'queued', guards: ['sentAt'] }, // set {queuedAt, submitAttempts}
  claim:      { from: ['queued'], to: 'claimed' },                                 // remove [queuedAt]
  send:       { from: ['claimed'], to: 'sending' },                                // set {sentAt}: the fence before the provider call
  accept:     { from: BEFORE_OUTPUTS, to: 'running', guards: ['jobId'] },          // set {provider, lastCheckedAt}, remove [queuedAt]
  check:      { from: ['running'], to: 'same', guards: ['checkedBefore'] },        // set {lastCheckedAt}
  progress:   { from: ['running'], to: 'same', guards: ['progressBelow', 'reportedBefore'] }, // set {progress, queuePosition?, reportedAt}
  outputs:    { from: ['running'], to: 'storing' },                                // set {pendingOutputs}
  copyClaim:  { from: ['storing'], to: 'same', guards: ['copyClaimedBefore'] },    // set {copyClaimedAt}: one copy at a time
  copyFailed: { from: ['storing'], to: 'same' },                                   // countCopyFailure, remove [copyClaimedAt]
  complete:   { from: ['storing'], to: 'completed' },                              // set {outputUrls, thumbnailUrl?, completedAt}, remove [pendingOutputs]
  completeForDelivery: { from: ['storing'], to: 'delivering' },                    // complete's twin for a task with a destination: + set {delivery: next attempt}
  claimDelivery: { from: ['delivering'], to: 'same', guards: ['deliveryAttempts', 'deliveryFree'] }, // set {delivery: + claimedUntil}: one attempt at a time
  deliveryFailed: { from: ['delivering'], to: 'same', guards: ['deliveryAttempts'] }, // set {delivery: attempts+1, lastError, nextAttemptAt, partsDone}
  deliver:    { from: ['delivering'], to: 'completed', guards: ['deliveryAttempts'] }, // set {delivery: delivered}, remove [destination]
  deliverAndDrop: { from: ['delivering'], to: 'deleting', guards: ['deliveryAttempts', 'announced'] }, // keep_output false: + set {outputDeletedAt}
  giveUpDelivery: { from: ['delivering'], to: 'completed', guards: ['deliveryAttempts'] }, // set {delivery: failed, eventOwed}, remove [destination]
  deliveryAnnounced: { from: ['completed', 'deleting', 'output_deleted'], to: 'same' }, // set {delivery: without eventOwed}, once `*.delivery_failed` is published
  fail:       { from: IN_FLIGHT, to: 'failed', refund: true },                     // refused create, failed job, copies given up
  lose:       { from: NO_JOB, to: 'failed', refund: true },                        // unanswered create, no job adopted in the grace
  cancel:     { from: BEFORE_OUTPUTS, to: 'failed', refund: true },                // once outputs are recorded it completes (409)
  timeout:    { from: IN_FLIGHT, to: 'failed', refund: true },
  announce:   { from: ['completed', 'failed', 'delivering'], to: 'same', guards: ['stillDelivering'] }, // announced (+ feedEntry when it is the whole publication): out of the outbox
  deleteOutputs: { from: ['completed'], to: 'deleting', guards: ['announced'] },   // set {outputDeletedAt}: DELETE or retention; objects removed next
  purge:      { from: ['deleting'], to: 'output_deleted' },                        // remove [outputUrls, thumbnailUrl] once the objects are gone
  markDeleted: { from: ['failed'], to: 'same' },                                   // set {outputDeletedAt}: a DELETE of a failed task (nothing stored)
} as const satisfies Record<string, Rule>;

export type TaskEvent = keyof typeof TRANSITIONS;
/** The events that end a task failed, with its refund. */
export type FailureEvent = { [E in TaskEvent]: (typeof TRANSITIONS)[E] extends { refund: true } ? E : never }[TaskEvent];

/**
 * The one way the domain moves a task: the event names its rule, the store checks the phase and
 * the guards in one conditional write. The stored task after it, or undefined when refused.
 */
export async function move(
  tasks: Pick<TaskStore, 'transition'> & Partial<Pick<TaskStore, 'settlePositions'>>,
  task: Task,
  event: TaskEvent,
  patch: TaskPatch = {},
): Promise<Task | undefined> {
  const rule: Rule = TRANSITIONS[event];
  if (rule.refund && !patch.refund) throw new Error(`The ${event} of task ${task.taskId} needs its refund.`);
  if ((rule.to === 'same') !== (patch.at === undefined)) throw new Error(`The ${event} of task ${task.taskId}: a phase change has an instant, a touch none.`);
  // A task whose start was cut short before its settle ends with its positions, never without:
  // a final task is in no work list the sweeper settles from.
  const settled = rule.to !== 'same' && statusOf(rule.to) !== 'processing' && task.seq === 0 && tasks.settlePositions ? await settleQuietly(tasks.settlePositions.bind(tasks), task) : task;
  return tasks.transition(settled, rule.from, rule.to, patch);
}

/** The settle before an ending; a failure leaves the ending to go ahead (its money is exact either way). */
async function settleQuietly(settle: (task: Task) => Promise<Task>, task: Task): Promise<Task> {
  try {
    return await settle(task);
  } catch {
    return task;
  }
}

/** Whether the stored task may take a write from `from` with these guards: the rule the adapter compiles into a condition. */
export function admits(stored: Task, from: readonly Phase[], guard: TransitionGuard = {}): boolean {
  if (!from.includes(stored.phase)) return false;
  if (guard.sentAt !== undefined && (stored.sentAt ?? null) !== guard.sentAt) return false;
  if (guard.jobId !== undefined && stored.provider && stored.provider.jobId !== guard.jobId) return false;
  // ISO instants compare as strings, as DynamoDB compares them.
  if (guard.checkedBefore !== undefined && stored.lastCheckedAt !== undefined && stored.lastCheckedAt > guard.checkedBefore) return false;
  if (guard.progressBelow !== undefined && !(stored.progress < guard.progressBelow)) return false;
  if (guard.reportedBefore !== undefined && stored.reportedAt !== undefined && !(stored.reportedAt < guard.reportedBefore)) return false;
  if (guard.copyClaimedBefore !== undefined && stored.copyClaimedAt !== undefined && stored.copyClaimedAt > guard.copyClaimedBefore) return false;
  if (guard.announced && stored.unannounced) return false;
  if (guard.deliveryAttempts !== undefined && (stored.delivery?.attempts ?? 0) !== guard.deliveryAttempts) return false;
  if (guard.deliveryFree !== undefined && stored.delivery?.claimedUntil !== undefined && !(stored.delivery.claimedUntil < guard.deliveryFree)) return false;
  if (guard.stillDelivering && stored.phase !== 'delivering') return false;
  return true;
}
