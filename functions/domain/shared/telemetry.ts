/**
 * What the use cases tell operators: log lines about changes and counts of business events.
 * functions/observability/ implements it with Powertools (JSON logs, CloudWatch metrics in
 * namespace VidGen); the domain never sees a logger or a metrics library.
 */

/** Counted business events (CloudWatch metric names; unit Count). */
export type BusinessEvent =
  | 'TaskStarted'
  | 'TaskCompleted'
  | 'TaskFailed'
  | 'TaskRefunded'
  /** Counted by the cancel use case (CONTRACT.md's cancel routes), next to TaskFailed. */
  | 'TaskCanceled'
  /** Outputs PUT to a customer's destination (per `kind`), and deliveries given up (delivery.ts). */
  | 'DeliveryDelivered'
  | 'DeliveryFailed'
  /** A provider call that failed: unreachable, timed out, 5xx, unreadable answer. */
  | 'ProviderError'
  /** A create that waits on the submission queue (over the provider's budget, or refused for load). */
  | 'SubmissionQueued'
  /** A provider callback applied to its task (or adopting its job). */
  | 'ProviderCallback'
  /** A job we do not count on (a late callback for a task that ended without it), canceled upstream. */
  | 'OrphanJobCanceled'
  /** A poll for a task whose recorded provider is not configured any more (it waits for its timeout). */
  | 'ProviderNotConfigured'
  /** A create sent to a provider (per `provider`), failovers included. */
  | 'ProviderSubmission'
  /**
   * A create that did not take (per `provider` and `kind`: unavailable (no answer, 5xx), refused
   * (a 4xx), rate_limited, unknown (a job may exist), not_sent (no entry in its model map)).
   */
  | 'ProviderFailure'
  /** A create refused before any job existed, passed to the model's next route (per `provider` it left). */
  | 'ProviderFailover'
  /** A route skipped because its provider's circuit is open (also an INFO line naming it). */
  | 'ProviderSkipped'
  /** A provider's circuit opened (or reopened after a failed probe): alarmed. */
  | 'CircuitOpened'
  | 'SweeperTasksExamined'
  /** Credits a refunded or disputed pack should have taken back but the balance no longer had. */
  | 'ReversalShortfall'
  /** A completed video whose first frame could not be made into a thumbnail (it completes without one). */
  | 'ThumbnailFailed'
  /** An invitation whose mail could not be sent (the invitation stays valid; inviting again resends it). */
  | 'InvitationMailFailed';

/** Extra fields of a log line, snake_case (`task_id`, `account_id`, `model`...). */
export type LogFields = Record<string, unknown>;

export interface Telemetry {
  info(message: string, fields?: LogFields): void;
  /** Expected trouble (a provider refusal, a retry to come): no stack trace. */
  warn(message: string, fields?: LogFields): void;
  /** Unexpected failures: logged with the error's stack. */
  error(message: string, error: unknown, fields?: LogFields): void;
  /** Counts an event; `model` adds a per-model breakdown next to the service-wide count. */
  count(event: BusinessEvent, options?: { model?: string; value?: number; provider?: string; kind?: string }): void;
  /**
   * How long a provider call took (metric ProviderLatency, milliseconds); with `provider`, also
   * per provider (`accept`: from a start's first route to the provider that took its job).
   */
  providerLatency(milliseconds: number, operation: string, provider?: string): void;
}

/** For tests and tools that want no output. */
export const SILENT_TELEMETRY: Telemetry = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  count: () => undefined,
  providerLatency: () => undefined,
};
