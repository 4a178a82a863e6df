import type { AuditEntry, AuditPage } from './audit';

/** Ports every aggregate may use. */

/**
 * A work queue: each message is delivered at least once (so consumers must be idempotent),
 * after its delay, to a consumer that may fail it to have it delivered again. SQS on AWS, an
 * in-process queue with the same semantics on the local stack.
 */
export interface MessageQueue<T> {
  /** `delaySeconds` is at most MAX_QUEUE_DELAY_SECONDS: longer waits are re-sent by the consumer. */
  send(message: T, options?: { delaySeconds?: number }): Promise<void>;
}

/** SQS's limit on a message's delay, kept by every implementation. */
export const MAX_QUEUE_DELAY_SECONDS = 900;

/**
 * An account's audit log (domain/shared/audit.ts). Most entries are written by the store of the
 * change itself, in its transaction; `record` writes one alone, for a change whose other half
 * lives elsewhere (a checkout Stripe opened). Fails if an entry with the same id exists.
 */
export interface AuditLog {
  record(entry: AuditEntry): Promise<void>;
  /** Newest first, entries older than `after` (an `aud_…` id) when given: O(limit) at any size. */
  page(accountId: string, after: string | undefined, limit: number): Promise<AuditPage>;
}
