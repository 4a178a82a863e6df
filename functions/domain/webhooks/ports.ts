import type { AttemptOutcome, Delivery, DeliveryMessage } from './deliveries';
import type { FeedEvent } from './events-feed';
import type { WebhookEndpoint } from './webhooks';
import type { AuditEntry } from '../shared/audit';

/** Where webhook endpoints, their deliveries and the events feed are kept, and which destinations we refuse. */

export interface WebhookStore {
  /** Stores the endpoint and its audit entry together unless the account already has `max`; false (and no entry) when it has. */
  create(endpoint: WebhookEndpoint, max: number, entry: AuditEntry): Promise<boolean>;
  get(accountId: string, webhookId: string): Promise<WebhookEndpoint | undefined>;
  /** Oldest first. */
  list(accountId: string): Promise<WebhookEndpoint[]>;
  /** Deletes the endpoint with its audit entry; false (and no entry) when there was no such endpoint. */
  delete(accountId: string, webhookId: string, entry: AuditEntry): Promise<boolean>;
  /**
   * Records `test` as the endpoint's last test event, only if its last one is still the one in
   * `seen` (so of two racing test requests one wins). False otherwise, or if the endpoint is gone.
   */
  claimTest(seen: WebhookEndpoint, test: { eventId: string; at: string }): Promise<boolean>;
}

/** Which destinations are refused when an endpoint is created, in words that follow "url: ". */
export interface DestinationPolicy {
  whyRefused(url: string): string | undefined;
}

export interface DeliveryStore {
  /** Records a new pending delivery; false if this event already has one for this endpoint, or the endpoint is gone. */
  create(delivery: Delivery): Promise<boolean>;
  get(message: DeliveryMessage): Promise<Delivery | undefined>;
  /**
   * Makes a delivery pending again with its next attempt due at `now` (a redelivery asked for),
   * only if nobody recorded an attempt or reopened it since `seen` was read.
   */
  reopen(seen: Delivery, now: string): Promise<boolean>;
  /** Saves an attempt's outcome, only if nobody recorded an attempt since `seen` was read. */
  recordAttempt(seen: Delivery, next: AttemptOutcome): Promise<boolean>;
  /**
   * Pending deliveries whose next attempt was due before `before` (ISO 8601): one stream per
   * shard of the list, each soonest due first.
   */
  listDue(before: string): AsyncIterable<DeliveryMessage>[];
  /** One page of an endpoint's deliveries, newest first, and how many it has had. */
  listPage(accountId: string, webhookId: string, page: number, limit: number): Promise<{ deliveries: Delivery[]; total: number }>;
}

export interface EventFeedStore {
  /**
   * Appends the event at the next position; false (and nothing written) when its id is already
   * there. `after`: the last position if already read (lastPosition), so the first try reads nothing.
   */
  append(accountId: string, event: Omit<FeedEvent, 'position'>, after?: number): Promise<boolean>;
  /**
   * Up to `limit` events after position `after`, oldest first, and the last position taken so
   * far. Every event at or below that last position is committed before it is read, so a page
   * never misses one that a later page would not show either.
   */
  after(accountId: string, after: number, limit: number): Promise<{ events: FeedEvent[]; last: number }>;
  get(accountId: string, eventId: string): Promise<FeedEvent | undefined>;
  /** The last position taken: an append made next takes the one after it (TaskPatch.feedEntry). */
  lastPosition(accountId: string): Promise<number>;
}
