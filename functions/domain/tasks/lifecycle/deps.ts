import type { CircuitBreaker } from '../../providers/circuit-breaker';
import type { ProviderRoutes } from '../../providers/choice';
import type { GenerationProvider } from '../../providers/provider';
import type { CopyQueue, DeliveryRef, MediaStore, SubmissionRequest, TaskDurations, TaskEndings, TaskStore, Thumbnails } from '../ports';
import type { MessageQueue } from '../../shared/ports';
import type { ProviderBudget } from '../../providers/ports';
import type { Task } from '../task';

import type { Telemetry } from '../../shared/telemetry';

/**
 * What happens to a task after it was started: asking the provider, copying results into
 * our storage, completing or failing (with its refund). Shared by status polls, the copy
 * worker and the sweeper, for videos and images alike.
 */
export interface LifecycleDeps {
  tasks: TaskStore;
  /** Recent durations per provider and model: estimates while processing, a sample at each completion. Absent: no estimates. */
  durations?: TaskDurations;
  provider: GenerationProvider;
  /** Test-mode tasks' provider (simulated); pick one with provider-choice.ts. */
  testProvider?: GenerationProvider;
  /** The other providers still configured, by name: tasks that recorded one are followed there. */
  otherProviders?: (name: string) => GenerationProvider | undefined;
  /** Per model, the providers a new live task's create may go to, in order (provider-routing.ts). */
  routes?: ProviderRoutes;
  /** Each provider's circuit breaker, shared by every function; unset: every route is always tried. */
  circuits?: CircuitBreaker;
  media: MediaStore;
  /** Makes a completed video's poster (ffmpeg); without it videos complete with no thumbnail. */
  thumbnails?: Thumbnails;
  copyQueue: CopyQueue;
  /** Task time: what tasks are dated and judged by (tests move it). */
  clock: () => Date;
  /**
   * Real time in ms, for what real time must pace: waiting for a budget turn (shared with every
   * other function), the sweeper's run budget, waiting for an earlier request's answer.
   */
  realTime: () => number;
  settings: LifecycleSettings;
  /** Where a task's ending is published (webhooks), at least once. */
  events: TaskEndings;
  telemetry: Telemetry;
  /** Turns for calls to a paced provider, shared by every function. */
  budget: ProviderBudget;
  /** Creates that wait for a turn (SQS on AWS, in process locally). */
  submissions: MessageQueue<SubmissionRequest>;
  /** Deliveries of completed outputs to the customer's storage (delivery.ts); absent: none are made. */
  deliveries?: MessageQueue<DeliveryRef>;
  /**
   * Our callback route for a task's job at a provider, with the token that binds it to the task;
   * undefined: no callbacks, polls only.
   */
  callbackUrl?: (task: Task, provider: string, token: string) => string;
}

export interface LifecycleSettings {
  /** Polls within this long of the last upstream check reuse it (2 s by default). */
  checkIntervalMs: number;
  /** A task still processing after this long fails with `timeout` (default 30 min). */
  taskTimeoutMs: number;
  /**
   * A task with no provider job this long after its create went out (timed out, or cut short)
   * gets no callback adopting a job any more: it is failed and refunded.
   */
  submissionGraceMs: number;
  /** Creates a second each paced provider allows us, by provider name; others are not paced. */
  providerBudgets: Readonly<Record<string, number>>;
  /** A start waits at most this long for a turn before its create goes on the queue instead. */
  inlineTurnWaitMs: number;
  /** The queue's consumer waits at most this long for a turn before putting a message back. */
  queuedTurnWaitMs: number;
  /** A copy of a request waits at most this long for the first one's answer under its Idempotency-Key. */
  earlierAnswerWaitMs: number;
  /**
   * How long a copy of a task's outputs keeps its claim: another copy asked for meanwhile (the
   * sweeper's) leaves the task to it. Longer than the copy worker may run (5 min on AWS).
   */
  copyLeaseMs: number;
  /** A job that calls back is asked about only after this long without news (a lost callback). */
  callbackSilenceMs: number;
  /** Failed copies of a result before the task gives up and fails (refunded). */
  maxCopyAttempts: number;
}

export const DEFAULT_LIFECYCLE_SETTINGS: LifecycleSettings = {
  checkIntervalMs: 2_000,
  taskTimeoutMs: 30 * 60_000,
  // Long enough for a job's first callback even when the provider queues it a while.
  submissionGraceMs: 10 * 60_000,
  maxCopyAttempts: 5,
  copyLeaseMs: 6 * 60_000,
  providerBudgets: {},
  inlineTurnWaitMs: 1_000,
  queuedTurnWaitMs: 5_000,
  // Most starts answer within a second or two; a few seconds of slack, well inside the 28 s a function has.
  earlierAnswerWaitMs: 10_000,
  callbackSilenceMs: 2 * 60_000,
};
