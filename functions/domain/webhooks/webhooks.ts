import { randomBytes } from 'node:crypto';
import { NotFoundError, ValidationError } from '../shared/errors';
import { getCallerAccount } from '../accounts/get-account';
import type { AccountStore } from '../accounts/ports';
import { newEventId, newWebhookId, taskEventId } from '../shared/ids';
import { isLivemode } from '../shared/partition';
import { progressOf } from '../tasks/progress';
import type { Task } from '../tasks/task';
import type { WebhookStore, DestinationPolicy } from './ports';
import { auditEntry, redactUrl, type AuditStamp } from '../shared/audit';

/**
 * Customer webhook endpoints (Standard Webhooks): an account registers up to ten URLs, each
 * with the events it wants and a signing secret shown once. Deliveries are in
 * webhook-deliveries.ts.
 */
export const TASK_EVENT_TYPES = ['video.completed', 'video.failed', 'image.completed', 'image.failed', 'video.delivery_failed', 'image.delivery_failed'] as const;
/** Every type before deliveries existed: an endpoint that lists exactly these was created for "everything" (the default then). */
const PRE_DELIVERY_TYPES = TASK_EVENT_TYPES.slice(0, 4);

/** Whether `endpoint` wants events of `type`: listed, or a delivery failure to an endpoint made for all types before they existed. */
export function wants(endpoint: Pick<WebhookEndpoint, 'events'>, type: EventType): boolean {
  if (type === 'webhook.test' || endpoint.events.includes(type)) return true;
  return type.endsWith('.delivery_failed') && endpoint.events.length === PRE_DELIVERY_TYPES.length && PRE_DELIVERY_TYPES.every((known) => endpoint.events.includes(known));
}
export type TaskEventType = (typeof TASK_EVENT_TYPES)[number];
export type EventType = TaskEventType | 'webhook.test';

export const MAX_WEBHOOKS_PER_ACCOUNT = 10;
export const MAX_WEBHOOK_DESCRIPTION = 500;

export interface WebhookEndpoint {
  webhookId: string;
  accountId: string;
  url: string;
  events: TaskEventType[];
  description: string | null;
  /** `whsec_` + base64 of 24 random bytes: the signing key, shown to the customer once. */
  secret: string;
  createdAt: string;
  /** The last `webhook.test` event asked for, which paces the next (sendTestEvent). */
  lastTest: { eventId: string; at: string } | null;
}

export interface NewWebhook {
  url: string;
  events?: TaskEventType[];
  description?: string;
}

export async function createWebhook(
  deps: { webhooks: WebhookStore; accounts: Pick<AccountStore, 'get'>; clock: () => Date; destinations: DestinationPolicy },
  accountId: string,
  input: NewWebhook,
  stamp: AuditStamp,
): Promise<WebhookEndpoint> {
  const problem = deps.destinations.whyRefused(input.url);
  if (problem) throw new ValidationError(`url: ${problem}.`, 'url');
  // The endpoint count lives on the scope's account item: a test key's first use opens it.
  await getCallerAccount(deps.accounts, accountId);
  const endpoint: WebhookEndpoint = {
    webhookId: newWebhookId(),
    accountId,
    url: input.url,
    events: input.events ? [...new Set(input.events)] : [...TASK_EVENT_TYPES],
    description: input.description ?? null,
    secret: `whsec_${randomBytes(24).toString('base64')}`,
    createdAt: deps.clock().toISOString(),
    lastTest: null,
  };
  if (!(await deps.webhooks.create(endpoint, MAX_WEBHOOKS_PER_ACCOUNT, webhookAudit(stamp, endpoint, 'webhook.created', deps.clock())))) {
    throw new ValidationError(
      `url: an account can have at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhook endpoints; delete one first.`,
      'url',
    );
  }
  return endpoint;
}

const WEBHOOK_ID = /^whk_[0-9A-HJKMNP-TV-Z]{26}$/;

/** One of the caller's endpoints; another account's id and an unknown one are the same 404. */
export async function getWebhook(webhooks: WebhookStore, accountId: string, webhookId: string): Promise<WebhookEndpoint> {
  const endpoint = WEBHOOK_ID.test(webhookId) ? await webhooks.get(accountId, webhookId) : undefined;
  if (!endpoint) throw new NotFoundError(`No webhook with id "${webhookId.slice(0, 64)}".`);
  return endpoint;
}

/** Deletes one of the caller's endpoints (read first: its entry names the URL it had). */
export async function deleteWebhook(deps: { webhooks: WebhookStore; clock: () => Date }, accountId: string, webhookId: string, stamp: AuditStamp): Promise<void> {
  const endpoint = await getWebhook(deps.webhooks, accountId, webhookId);
  if (!(await deps.webhooks.delete(accountId, webhookId, webhookAudit(stamp, endpoint, 'webhook.deleted', deps.clock())))) {
    throw new NotFoundError(`No webhook with id "${webhookId.slice(0, 64)}".`);
  }
}

/** An endpoint's entry: its URL without query or userinfo, its events, its description; never its secret. */
function webhookAudit(stamp: AuditStamp, endpoint: WebhookEndpoint, action: 'webhook.created' | 'webhook.deleted', now: Date) {
  return auditEntry(stamp, endpoint.accountId, action, { type: 'webhook', id: endpoint.webhookId }, { url: redactUrl(endpoint.url), events: endpoint.events, description: endpoint.description }, now);
}

/** Something that happened, to be sent to the endpoints that want it. Its id is `webhook-id`. */
export interface WebhookEvent {
  id: string;
  type: EventType;
  createdAt: string;
  /** False for the events of test mode (a test key's tasks and endpoints). */
  livemode: boolean;
  subject: { kind: 'task'; task: Task } | { kind: 'test'; webhookId: string };
}

/** Turns an event into the body every attempt sends (the contract's wire format). */
export type EventRenderer = (event: WebhookEvent) => string;

/** The event of a task that ended: one per task (its id comes from the task's), completed or failed. */
export function taskEndedEvent(task: Task): WebhookEvent {
  const createdAt = task.completedAt ?? task.updatedAt;
  return {
    id: taskEventId(task.taskId),
    type: `${task.kind}.${task.status === 'completed' ? 'completed' : 'failed'}`,
    createdAt,
    livemode: isLivemode(task.partitionId),
    // As GET answers it: a final task's progress is 100 when completed, its last value when failed.
    subject: { kind: 'task', task: asOf(task, createdAt) },
  };
}

/**
 * A delivery to the customer's storage given up (delivery.ts): the view at that moment, under the
 * id the give-up recorded (a repeat publishes the same event).
 */
export function deliveryFailedEvent(task: Task): WebhookEvent {
  return {
    id: task.delivery?.eventId ?? newEventId(),
    type: `${task.kind}.delivery_failed`,
    createdAt: task.updatedAt,
    livemode: isLivemode(task.partitionId),
    subject: { kind: 'task', task: asOf(task, task.updatedAt) },
  };
}

/**
 * The task with its progress at the event's own time, so an event's body does not depend on when
 * it is built or rebuilt (for a final task that time does not matter: see progressOf).
 */
const asOf = (task: Task, at: string): Task => ({ ...task, progress: progressOf(task, new Date(at)) });

export function testEvent(endpoint: WebhookEndpoint, now: Date): WebhookEvent {
  return {
    id: newEventId(),
    type: 'webhook.test',
    createdAt: now.toISOString(),
    livemode: isLivemode(endpoint.accountId),
    subject: { kind: 'test', webhookId: endpoint.webhookId },
  };
}

export const listWebhooks = (webhooks: WebhookStore, accountId: string): Promise<WebhookEndpoint[]> => webhooks.list(accountId);
