import { providerCallbackUrl } from '#contract/params';
import type { AccountStore } from '#domain/accounts/ports';
import type { CircuitBreaker } from '#domain/providers/circuit-breaker';
import type { ProviderRoutes } from '#domain/providers/choice';
import type { ProviderBudget } from '#domain/providers/ports';
import type { GenerationProvider } from '#domain/providers/provider';
import type { MessageQueue } from '#domain/shared/ports';
import type { Telemetry } from '#domain/shared/telemetry';
import type { CallbackDeps } from '#domain/tasks/callbacks';
import { DEFAULT_LIFECYCLE_SETTINGS, type LifecycleSettings } from '#domain/tasks/lifecycle/deps';
import type {
  CallbackReceipts,
  TaskDurations,
  CopyQueue,
  IdempotencyStore,
  MediaStore,
  ReferenceUrlPolicy,
  SubmissionRequest,
  TaskEndings,
  TaskStore,
  Thumbnails,
} from '#domain/tasks/ports';
import type { StartDeps } from '#domain/tasks/start-task';
import type { DestinationUrlPolicy } from '#domain/tasks/destination-rules';
import type { DeliveryRef } from '#domain/tasks/delivery';

/** Everything a task use case may be given: starts, polls, callbacks, copies and sweeps. */
export type TaskDeps = StartDeps & CallbackDeps;

/** The providers a lifecycle calls, and how a new live task chooses among them. */
export interface ProviderSet {
  provider: GenerationProvider;
  /** Test mode's (simulated); unset: the configured one. */
  testProvider?: GenerationProvider;
  otherProviders?: (name: string) => GenerationProvider | undefined;
  routes?: ProviderRoutes;
  circuits?: CircuitBreaker;
}

/**
 * The ports a task lifecycle is made of, grouped as the wiring builds them (app-context on AWS
 * and locally, test/support/memory-world.ts in memory). The ports a function may never touch
 * (the queues, the budget) may be shells that build their adapter on first use.
 */
export interface LifecycleParts {
  stores: { accounts: AccountStore; tasks: TaskStore; idempotency: IdempotencyStore; callbackReceipts: CallbackReceipts; durations?: TaskDurations };
  providers: ProviderSet;
  media: MediaStore;
  references: ReferenceUrlPolicy;
  destinations: DestinationUrlPolicy;
  /** The copy worker's alone: no other function makes a video's poster. */
  thumbnails?: Thumbnails;
  /** Where results are copied (the copy worker), and where creates wait for a turn. */
  copies: CopyQueue;
  submissions: MessageQueue<SubmissionRequest>;
  /** Where a completion with a destination asks for its delivery. */
  deliveries?: MessageQueue<DeliveryRef>;
  budget: ProviderBudget;
  events: TaskEndings;
  telemetry: Telemetry;
  /** Task time (tests move it) and real time (what pacing and waits use). */
  clock: () => Date;
  realTime: () => number;
  /** Over DEFAULT_LIFECYCLE_SETTINGS. */
  settings?: Partial<LifecycleSettings>;
  /** The API's public base URL (ending in /api/v1) where jobs call back; unset: no callbacks, polls only. */
  callbackBaseUrl?: string;
}

/**
 * The task use cases' dependencies, from their parts: the one place their fields are assembled,
 * so a field the domain adds breaks here (and in the parts' builders), not in every wiring.
 * Pure: it builds nothing and calls nothing.
 */
export function composeLifecycle(parts: LifecycleParts): TaskDeps {
  const { stores, providers, callbackBaseUrl } = parts;
  return {
    accounts: stores.accounts,
    tasks: stores.tasks,
    ...(stores.durations && { durations: stores.durations }),
    idempotency: stores.idempotency,
    callbackReceipts: stores.callbackReceipts,
    references: parts.references,
    destinations: parts.destinations,
    provider: providers.provider,
    ...(providers.testProvider && { testProvider: providers.testProvider }),
    ...(providers.otherProviders && { otherProviders: providers.otherProviders }),
    ...(providers.routes && { routes: providers.routes }),
    ...(providers.circuits && { circuits: providers.circuits }),
    media: parts.media,
    ...(parts.thumbnails && { thumbnails: parts.thumbnails }),
    copyQueue: parts.copies,
    submissions: parts.submissions,
    ...(parts.deliveries && { deliveries: parts.deliveries }),
    budget: parts.budget,
    events: parts.events,
    telemetry: parts.telemetry,
    clock: parts.clock,
    realTime: parts.realTime,
    settings: { ...DEFAULT_LIFECYCLE_SETTINGS, ...parts.settings },
    ...(callbackBaseUrl && {
      callbackUrl: (task, provider, token) => providerCallbackUrl(callbackBaseUrl, provider, task.partitionId, task.taskId, token),
    }),
  };
}
