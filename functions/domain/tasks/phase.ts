/** What a client sees of a task's phase. */
export const TASK_STATUSES = ['processing', 'completed', 'failed'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/**
 * Where a task is in its lifecycle (docs/tasks.md, "Phases"). Exactly one at a time; the public
 * `status` follows from it. The transitions between them are in transitions.ts.
 */
export const PHASES = {
  /** Legacy only: a start's first item, before its charge settled (no history position). New starts never write one. */
  draft: { status: 'processing' },
  /** Charged; one submitter holds it and will send its create or queue it. Provably nothing sent. */
  claimed: { status: 'processing' },
  /** Charged, waiting for a turn on the submission queue. No job can exist upstream. */
  queued: { status: 'processing' },
  /** A create went out and no job is recorded: a job may exist. */
  sending: { status: 'processing' },
  /** A job is recorded; its outputs are not known yet. */
  running: { status: 'processing' },
  /** The provider's outputs are recorded and being copied into our storage. */
  storing: { status: 'processing' },
  completed: { status: 'completed' },
  /**
   * Completed (charged, announced like any completion), its outputs being PUT to the start's
   * destination (destinations.ts): the delivery worker's. Ends `completed` (delivered or given
   * up) or, with `keep_output: false`, `deleting`.
   */
  delivering: { status: 'completed' },
  /** Completed, its outputs being removed from storage (DELETE, retention): the view already says deleted. */
  deleting: { status: 'completed' },
  /** Completed, its outputs removed from storage: the task stays, with `outputDeletedAt`. */
  output_deleted: { status: 'completed' },
  /** Ended without a result, refunded. */
  failed: { status: 'failed' },
} as const satisfies Record<string, { status: TaskStatus }>;

export type Phase = keyof typeof PHASES;
export const PHASE_NAMES = Object.keys(PHASES) as Phase[];
/** The phases of a task still in flight (the sweeper's rows). */
export const IN_FLIGHT_PHASES = ['claimed', 'queued', 'sending', 'running', 'storing'] as const satisfies readonly Phase[];
export type InFlightPhase = (typeof IN_FLIGHT_PHASES)[number];

export const statusOf = (phase: Phase): TaskStatus => PHASES[phase].status;
export const isFinal = (phase: Phase): phase is 'completed' | 'failed' => phase === 'completed' || phase === 'failed';
/**
 * A move from `from` to `to` ends the task (processing -> completed or failed, `delivering`
 * included): it enters the outbox, its events owed. Moves between ended phases never do.
 */
export const endsTask = (from: Phase, to: Phase): boolean => statusOf(from) === 'processing' && statusOf(to) !== 'processing';

/** The fields a task written before phases existed tells its phase by. */
export interface LegacyFields {
  status: TaskStatus;
  /** Absent (0 in a Task) until the start settled its history position. */
  seq?: number;
  unsent?: boolean;
  queuedAt?: string;
  providerJobId?: string;
  pendingOutputs?: readonly string[];
}

/**
 * The phase of a task stored without a trusted one (written by the code before phases, or
 * changed by it during a rolling deploy). The order follows the rules that read those fields:
 * the sweeper's, the submission's and the old conditional writes'.
 */
export function derivePhase(fields: LegacyFields): Phase {
  if (fields.status === 'completed') return 'completed';
  if (fields.status === 'failed') return 'failed';
  // A discarded draft (expires_at) is never returned by a read.
  if (fields.seq === undefined || fields.seq === 0) return 'draft';
  // Outputs are recorded only after a job.
  if (fields.pendingOutputs !== undefined) return 'storing';
  if (fields.providerJobId !== undefined) return 'running';
  if (fields.queuedAt !== undefined) return 'queued';
  // Claimed off the queue, or a start before its create's fence.
  if (fields.unsent === true) return 'claimed';
  // Sent, or started before `unsent` existed: a job may exist.
  return 'sending';
}
