import { NotFoundError, RateLimitExceededError } from '../shared/errors';
import { appendToFeed } from './events-feed';
import type { DeliveryStore, EventFeedStore } from './ports';
import type { MessageQueue } from '../shared/ports';
import { MAX_QUEUE_DELAY_SECONDS } from '../shared/ports';
import { deliveryFailedEvent, getWebhook, taskEndedEvent, testEvent, wants, type EventRenderer, type EventType, type WebhookEndpoint, type WebhookEvent } from './webhooks';
import { type WebhookStore } from './ports';
import type { Page } from '../shared/page';
import type { PreparedEndings, TaskEndings } from '../tasks/ports';
import type { Task } from '../tasks/task';

/**
 * Delivering events to webhook endpoints, at least once: each (event, endpoint) pair gets one
 * delivery record and queue messages until an attempt is answered 2xx or the retry schedule
 * runs out. Retries send the same body under the same `webhook-id`, newly signed.
 */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface Delivery {
  accountId: string;
  webhookId: string;
  eventId: string;
  type: EventType;
  /** The exact body every attempt sends. */
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  /** Why the last attempt was not a delivery, in a few words ("HTTP 500", "connection refused"); null after a 2xx. */
  lastError: string | null;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
}

/** What a queue message names: one delivery. */
export interface DeliveryMessage {
  accountId: string;
  webhookId: string;
  eventId: string;
}

export type AttemptOutcome = Pick<Delivery, 'status' | 'attempts' | 'lastStatusCode' | 'lastError' | 'lastAttemptAt' | 'nextAttemptAt'>;

/** Signs a body the Standard Webhooks way: `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`. */
export type WebhookSigner = (secret: string, eventId: string, timestamp: Date, body: string) => string;

/**
 * POSTs to a customer's URL (SSRF-checked, no redirects, bounded time): the answer's status, or
 * when none came, why in a few words ("connection refused", "timeout after 10 s", "blocked: private address").
 */
export type WebhookSender = (url: string, body: string, headers: Record<string, string>) => Promise<{ status: number } | { error: string }>;

export interface DeliveryDeps {
  webhooks: WebhookStore;
  deliveries: DeliveryStore;
  /** Every task ending of a scope, whether or not an endpoint listens (GET /events). */
  feed: EventFeedStore;
  queue: MessageQueue<DeliveryMessage>;
  render: EventRenderer;
  sign: WebhookSigner;
  send: WebhookSender;
  clock: () => Date;
  /** Seconds before each retry; after the last one the delivery is failed. */
  retrySchedule: readonly number[];
}

/**
 * Records one delivery per interested endpoint (of `endpoints`, by default the account's) and
 * queues it. Safe to repeat: duplicates are skipped.
 */
export async function publishEvent(
  deps: Pick<DeliveryDeps, 'webhooks' | 'deliveries' | 'queue' | 'render'>,
  accountId: string,
  event: WebhookEvent,
  endpoints: readonly WebhookEndpoint[] | Promise<readonly WebhookEndpoint[]> = deps.webhooks.list(accountId),
): Promise<number> {
  const interested = (await endpoints).filter((endpoint) => wants(endpoint, event.type));
  const payload = deps.render(event);
  let queued = 0;
  for (const endpoint of interested) {
    const created = await deps.deliveries.create({
      accountId,
      webhookId: endpoint.webhookId,
      eventId: event.id,
      type: event.type,
      payload,
      status: 'pending',
      attempts: 0,
      lastStatusCode: null,
      lastError: null,
      lastAttemptAt: null,
      nextAttemptAt: event.createdAt,
      createdAt: event.createdAt,
    });
    if (!created) {
      // A repeat (the announcement is retried after a failure): queue it again only if no
      // attempt was ever made, in case the first queueing is what failed. A duplicate message
      // costs at most one duplicate attempt; a lost one would lose the event.
      const existing = await deps.deliveries.get({ accountId, webhookId: endpoint.webhookId, eventId: event.id });
      if (!existing || existing.status !== 'pending' || existing.attempts > 0) continue;
    }
    await deps.queue.send({ accountId, webhookId: endpoint.webhookId, eventId: event.id });
    queued += 1;
  }
  return queued;
}

/**
 * A task's ending: into its scope's events feed first, whether or not any endpoint listens, then
 * to each interested endpoint. Safe to repeat (the outbox retries it): both steps skip what is done.
 */
export async function publishTaskEnded(deps: Pick<DeliveryDeps, 'webhooks' | 'deliveries' | 'queue' | 'render' | 'feed'>, task: Task): Promise<void> {
  await publishTaskEvent(deps, task, taskEndedEvent(task));
}

/** A delivery to the customer's storage given up: `video.delivery_failed` / `image.delivery_failed`, as an ending is published. */
export async function publishDeliveryFailed(deps: Pick<DeliveryDeps, 'webhooks' | 'deliveries' | 'queue' | 'render' | 'feed'>, task: Task): Promise<void> {
  await publishTaskEvent(deps, task, deliveryFailedEvent(task));
}

async function publishTaskEvent(
  deps: Pick<DeliveryDeps, 'webhooks' | 'deliveries' | 'queue' | 'render' | 'feed'>,
  task: Task,
  event: WebhookEvent,
  ahead?: ReadAhead,
): Promise<void> {
  // The endpoints are read while the feed append runs (a round trip less for every ending); the
  // deliveries still go out after it, so an endpoint told of an event finds it in GET /events.
  const endpoints = ahead?.endpoints ?? deps.webhooks.list(task.partitionId);
  if (endpoints instanceof Promise) endpoints.catch(() => undefined); // awaited below; a failed append must not leave it unhandled
  await appendToFeed(deps.feed, task.partitionId, event, deps.render(event), ahead?.feedPosition);
  await publishEvent(deps, task.partitionId, event, endpoints);
}

/** What publishing a partition's endings reads, read once. */
interface ReadAhead {
  endpoints: readonly WebhookEndpoint[];
  feedPosition: number;
}

/** The tasks' TaskEndings port, published through these deps. */
export function taskEndingsOf(deps: Pick<DeliveryDeps, 'webhooks' | 'deliveries' | 'queue' | 'render' | 'feed'>): TaskEndings {
  return { ended: (task) => publishTaskEnded(deps, task), prepare: (partitionId) => prepareTaskEndings(deps, partitionId) };
}

/**
 * TaskEndings.prepare: the partition's endpoints and its feed's position, read at once. An
 * ending no endpoint wants is then only its feed entry, which its announce writes (the task
 * leaves the outbox in the same step); any other is published as usual, without those reads.
 */
async function prepareTaskEndings(deps: Pick<DeliveryDeps, 'webhooks' | 'deliveries' | 'queue' | 'render' | 'feed'>, partitionId: string): Promise<PreparedEndings> {
  const [endpoints, feedPosition] = await Promise.all([deps.webhooks.list(partitionId), deps.feed.lastPosition(partitionId)]);
  const ahead: ReadAhead = { endpoints, feedPosition };
  return {
    quietEntry(task) {
      const event = taskEndedEvent(task);
      if (endpoints.some((endpoint) => wants(endpoint, event.type))) return undefined;
      return { eventId: event.id, type: event.type, payload: deps.render(event), createdAt: event.createdAt, after: feedPosition };
    },
    ended: (task) => publishTaskEvent(deps, task, taskEndedEvent(task), ahead),
  };
}

/**
 * Test events are paced per endpoint, so that the test route cannot be used to flood a URL: at
 * most one in flight (each is attempted once, never retried) and one every this many seconds.
 */
export const TEST_EVENT_INTERVAL_SECONDS = 10;

/** POST /webhooks/{id}/test: a `webhook.test` event to that endpoint only, one attempt. */
export async function sendTestEvent(deps: DeliveryDeps, accountId: string, webhookId: string): Promise<{ eventId: string }> {
  const endpoint = await getWebhook(deps.webhooks, accountId, webhookId);
  const now = deps.clock();
  const last = endpoint.lastTest;
  if (last) {
    const previous = await deps.deliveries.get({ accountId, webhookId, eventId: last.eventId });
    if (previous?.status === 'pending') {
      throw new RateLimitExceededError(
        TEST_EVENT_INTERVAL_SECONDS,
        `A test event to this endpoint (${last.eventId}) is still being delivered; send another once it has been answered (GET /webhooks/${webhookId}/deliveries shows it).`,
      );
    }
    const waitSeconds = Math.ceil((Date.parse(last.at) + TEST_EVENT_INTERVAL_SECONDS * 1000 - now.getTime()) / 1000);
    if (waitSeconds > 0) {
      throw new RateLimitExceededError(
        waitSeconds,
        `At most one test event per endpoint every ${TEST_EVENT_INTERVAL_SECONDS} seconds; retry after ${waitSeconds} seconds.`,
      );
    }
  }
  const event = testEvent(endpoint, now);
  if (!(await deps.webhooks.claimTest(endpoint, { eventId: event.id, at: event.createdAt }))) {
    throw new RateLimitExceededError(
      TEST_EVENT_INTERVAL_SECONDS,
      `Another test event to this endpoint was requested at the same time; retry after ${TEST_EVENT_INTERVAL_SECONDS} seconds.`,
    );
  }
  await publishEvent(deps, accountId, event, [endpoint]);
  return { eventId: event.id };
}

const EVENT_ID = /^evt_[0-9A-HJKMNP-TV-Z]{26}$/;

/**
 * POST /webhooks/{id}/deliveries/{event_id}/retry: one more attempt of an event to an endpoint,
 * now, under the same `webhook-id`. A delivery that ran out of retries gets one attempt; one
 * still retrying keeps its schedule from here; one whose attempt is already due is left as it
 * is (so retries cannot stack attempts on a URL). An event of the feed never delivered to this
 * endpoint (it did not exist yet, or did not want that type) gets its first delivery.
 */
export async function retryDelivery(
  deps: Pick<DeliveryDeps, 'webhooks' | 'deliveries' | 'queue' | 'feed' | 'clock'>,
  accountId: string,
  webhookId: string,
  eventId: string,
): Promise<{ eventId: string }> {
  const endpoint = await getWebhook(deps.webhooks, accountId, webhookId);
  const message = { accountId, webhookId: endpoint.webhookId, eventId };
  const now = deps.clock().toISOString();
  const delivery = EVENT_ID.test(eventId) ? await deps.deliveries.get(message) : undefined;
  if (delivery) {
    const due = delivery.status === 'pending' && (delivery.nextAttemptAt === null || delivery.nextAttemptAt <= now);
    // A racing retry that reopened it first has queued it: nothing more to send.
    if (!due && (await deps.deliveries.reopen(delivery, now))) await deps.queue.send(message);
    return { eventId };
  }
  const event = EVENT_ID.test(eventId) ? await deps.feed.get(accountId, eventId) : undefined;
  if (!event) throw new NotFoundError(`No event with id "${eventId.slice(0, 64)}" in this account's events or this endpoint's deliveries.`);
  const created = await deps.deliveries.create({
    accountId,
    webhookId: endpoint.webhookId,
    eventId,
    type: event.type,
    payload: event.payload,
    status: 'pending',
    attempts: 0,
    lastStatusCode: null,
    lastError: null,
    lastAttemptAt: null,
    nextAttemptAt: now,
    createdAt: now,
  });
  if (created) await deps.queue.send(message);
  return { eventId };
}

/**
 * Handles one queue message: makes the next attempt of its delivery when it is due. A message
 * that arrives early (a wait longer than the queue's delay limit) is sent on with the rest of
 * the wait. Throws only when the message should be delivered again by the queue.
 */
export async function attemptDelivery(deps: DeliveryDeps, message: DeliveryMessage): Promise<void> {
  const delivery = await deps.deliveries.get(message);
  if (!delivery || delivery.status !== 'pending') return;
  const now = deps.clock();
  const dueIn = delivery.nextAttemptAt ? Date.parse(delivery.nextAttemptAt) - now.getTime() : 0;
  if (dueIn > 1_000) {
    await deps.queue.send(message, { delaySeconds: Math.min(MAX_QUEUE_DELAY_SECONDS, Math.ceil(dueIn / 1000)) });
    return;
  }
  const endpoint = await deps.webhooks.get(message.accountId, message.webhookId);
  if (!endpoint) {
    // Deleted before delivery: the event is dropped (and leaves the sweeper's list of pending ones).
    await deps.deliveries.recordAttempt(delivery, { ...delivery, status: 'failed', lastError: 'endpoint deleted', nextAttemptAt: null });
    return;
  }

  let statusCode: number | null = null;
  let failure: string;
  try {
    const timestamp = deps.clock();
    const answer = await deps.send(endpoint.url, delivery.payload, {
      'content-type': 'application/json',
      'webhook-id': delivery.eventId,
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': deps.sign(endpoint.secret, delivery.eventId, timestamp, delivery.payload),
    });
    if ('status' in answer) statusCode = answer.status;
    failure = 'status' in answer ? answerWords(answer.status) : answer.error;
  } catch {
    // The sender words every failure it knows; anything else is still a failed attempt.
    failure = 'could not send';
  }
  const attempts = delivery.attempts + 1;
  const attemptedAt = deps.clock();
  const delivered = statusCode !== null && statusCode >= 200 && statusCode <= 299;
  // A test event checks the endpoint as it is now: one attempt, never retried (docs/decisions.md).
  const wait = delivery.type === 'webhook.test' ? undefined : deps.retrySchedule[attempts - 1];
  const next = delivered || wait === undefined ? null : new Date(attemptedAt.getTime() + wait * 1000);
  const recorded = await deps.deliveries.recordAttempt(delivery, {
    status: delivered ? 'delivered' : next ? 'pending' : 'failed',
    attempts,
    lastStatusCode: statusCode,
    lastError: delivered ? null : failure,
    lastAttemptAt: attemptedAt.toISOString(),
    nextAttemptAt: next ? next.toISOString() : null,
  });
  // Another copy of this message recorded an attempt first: it schedules what follows.
  if (!recorded || !next) return;
  await deps.queue.send(message, { delaySeconds: Math.min(MAX_QUEUE_DELAY_SECONDS, wait ?? 0) });
}

/**
 * A pending delivery this long past its due time has lost its queue message (the local stack's
 * queue lives in memory; a send can fail after the record was written): the sweeper queues it
 * again. Normally a message arrives within seconds of the due time, and an attempt takes at most
 * 10 s, so a duplicate attempt is rare (and harmless: at least once, one schedule).
 */
export const DELIVERY_STALL_MS = 60_000;

/**
 * The sweeper's part: queues every delivery overdue by DELIVERY_STALL_MS again. Returns how many.
 * Stops at `stopAt` on `realTime` (ms), the run's budget.
 */
export async function resendStalledDeliveries(
  deps: Pick<DeliveryDeps, 'deliveries' | 'queue' | 'clock'> & { realTime: () => number },
  options: { stopAt?: number } = {},
): Promise<number> {
  const before = new Date(deps.clock().getTime() - DELIVERY_STALL_MS).toISOString();
  let resent = 0;
  for (const shard of deps.deliveries.listDue(before)) {
    for await (const message of shard) {
      if (options.stopAt !== undefined && deps.realTime() > options.stopAt) return resent;
      await deps.queue.send(message);
      resent += 1;
    }
  }
  return resent;
}

/** Why an answer is not a delivery: a redirect (never followed) or another status. */
function answerWords(status: number): string {
  return status >= 300 && status <= 399 ? `redirect not followed (HTTP ${status})` : `HTTP ${status}`;
}

/** GET /webhooks/{id}/deliveries: newest first. */
export async function listDeliveries(
  deps: Pick<DeliveryDeps, 'webhooks' | 'deliveries'>,
  accountId: string,
  webhookId: string,
  page: number,
  limit: number,
): Promise<Page<Delivery>> {
  await getWebhook(deps.webhooks, accountId, webhookId);
  const { deliveries, total } = await deps.deliveries.listPage(accountId, webhookId, page, limit);
  const totalPages = Math.ceil(total / limit);
  return { items: deliveries, page, limit, total, totalPages, hasMore: page < totalPages };
}
