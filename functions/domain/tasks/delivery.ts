import type { MessageQueue } from '../shared/ports';
import type { Telemetry } from '../shared/telemetry';
import type { Delivery, DeliveryPart, Destination } from './destinations';
import { announceEnded } from './lifecycle/endings';
import { outputKeyOf, thumbnailKeyOf } from './lifecycle/outputs';
import { purgeOutputs } from './output-deletion';
import type { DeliveryRef, MediaStore, TaskEndings, TaskStore } from './ports';
import type { Task } from './task';
import { move } from './transitions';
import { newEventId } from '../shared/ids';

/**
 * The delivery of a completed task's outputs to the start's destination (CONTRACT.md, "Your
 * storage"; design-35 §3): one attempt per queue message, each PUT streamed from our storage.
 * Retried with backoff on timeouts, connection errors, 408, 429 and 5xx for over an hour, never
 * on another 4xx, a redirect or a refused address. Never touches the ledger.
 */

export type { DeliveryRef } from './ports';

/** What one PUT came to. `reason` is in words that never contain the URL (the view's `last_error`). */
export type PutOutcome = { type: 'delivered' } | { type: 'failed'; retryable: boolean; reason: string; retryAfterSeconds?: number };

/** PUTs the object at `key` in our storage to `destination`, streamed. Throws only on our own failures (reading our storage). */
export interface OutputSender {
  send(destination: Destination, key: string): Promise<PutOutcome>;
}

export interface DeliveryDeps {
  tasks: TaskStore;
  media: Pick<MediaStore, 'remove'>;
  sender: OutputSender;
  /** Where the next attempt waits (SQS with a delay on AWS). */
  queue: MessageQueue<DeliveryRef>;
  /** `ended` publishes a completion not announced yet; `deliveryFailed` the `*.delivery_failed` event. */
  events: TaskEndings & { deliveryFailed(task: Task): Promise<void> };
  clock: () => Date;
  telemetry: Telemetry;
  /** Seconds before each retry (the wait after attempt n is schedule[n-1]); after the last, the delivery fails. */
  retrySchedule: readonly number[];
}

/** The deployed schedule: 4,720 s (79 min) of waits, 11 attempts. */
export const DEFAULT_DELIVERY_SCHEDULE = [10, 30, 60, 120, 300, 600, 900, 900, 900, 900] as const;
/** SQS's longest delay; a longer wait is taken in steps. */
const MAX_DELAY_SECONDS = 900;
/** A Retry-After above this is not honoured beyond it. */
const MAX_RETRY_AFTER_SECONDS = 900;
/** How long one attempt holds its claim: more than an attempt may take (13 min) plus a margin. */
export const DELIVERY_LEASE_MS = 15 * 60_000;

/** One attempt at the delivery of `ref`'s task: the delivery queue's consumer. */
export async function deliverOutputs(deps: DeliveryDeps, ref: DeliveryRef): Promise<void> {
  let task = await deps.tasks.get(ref.accountId, ref.taskId);
  if (!task) return;
  // Given up before its event went out (a crash between the two writes): publish it now.
  if (task.delivery?.eventOwed) return void (await announceDeliveryFailure(deps, task));
  if (task.unannounced && task.phase === 'delivering') {
    // Its completion first (its copy announces it too; a repeat is harmless): an attempt then
    // ends from an announced read, which moves the task's index entry right (the deliveries'
    // list to the stored outputs'). Not publishable yet: the attempt waits.
    task = await announceEnded(deps, task);
    if (task.unannounced) return void (await deps.queue.send(ref, { delaySeconds: deps.retrySchedule[0] ?? 10 }));
  }
  if (task.phase !== 'delivering' || !task.destination || !task.delivery) return;

  const now = deps.clock();
  const delivery = task.delivery;
  const waitMs = delivery.nextAttemptAt ? Date.parse(delivery.nextAttemptAt) - now.getTime() : 0;
  if (waitMs > 1000) {
    // Early (a delay longer than SQS allows, or a duplicate): back on the queue for the rest.
    await deps.queue.send(ref, { delaySeconds: Math.min(MAX_DELAY_SECONDS, Math.ceil(waitMs / 1000)) });
    return;
  }
  const attempts = delivery.attempts;
  const claimed = await move(deps.tasks, task, 'claimDelivery', {
    set: { delivery: { ...delivery, claimedUntil: new Date(now.getTime() + DELIVERY_LEASE_MS).toISOString() } },
    guard: { deliveryAttempts: attempts, deliveryFree: now.toISOString() },
  });
  if (!claimed) return; // another worker holds this attempt
  task = claimed;

  const outcome = await sendParts(deps, task, delivery.partsDone ?? []);
  const at = deps.clock();
  const guard = { deliveryAttempts: attempts };
  if (outcome.type === 'delivered') {
    await delivered(deps, task, { status: 'delivered', attempts: attempts + 1, deliveredAt: at.toISOString() });
    return;
  }
  const waitSeconds = deps.retrySchedule[attempts];
  if (outcome.retryable && waitSeconds !== undefined) {
    const wait = Math.max(waitSeconds, Math.min(outcome.retryAfterSeconds ?? 0, MAX_RETRY_AFTER_SECONDS));
    const next: Delivery = {
      status: 'pending',
      attempts: attempts + 1,
      lastError: outcome.reason,
      nextAttemptAt: new Date(at.getTime() + wait * 1000).toISOString(),
      ...(outcome.partsDone.length > 0 && { partsDone: outcome.partsDone }),
    };
    if (await move(deps.tasks, task, 'deliveryFailed', { set: { delivery: next }, guard })) {
      deps.telemetry.info('delivery attempt failed; retrying', { task_id: task.taskId, attempts: attempts + 1, error: outcome.reason, wait_seconds: wait });
      await deps.queue.send(ref, { delaySeconds: Math.min(MAX_DELAY_SECONDS, wait) });
    }
    return;
  }
  const failed = await move(deps.tasks, task, 'giveUpDelivery', {
    at: at.toISOString(),
    set: { delivery: { status: 'failed', attempts: attempts + 1, lastError: outcome.reason, eventOwed: true, eventId: newEventId() } },
    remove: ['destination'],
    guard,
  });
  if (failed) {
    deps.telemetry.warn('delivery failed', { task_id: task.taskId, account_id: task.partitionId, attempts: attempts + 1, error: outcome.reason });
    deps.telemetry.count('DeliveryFailed', { kind: task.kind });
    await announceDeliveryFailure(deps, failed);
  }
}

/** Each part not delivered yet, in order, stopping at the first that is not delivered. */
async function sendParts(deps: DeliveryDeps, task: Task, done: readonly DeliveryPart[]): Promise<{ type: 'delivered' } | (Extract<PutOutcome, { type: 'failed' }> & { partsDone: DeliveryPart[] })> {
  const partsDone = [...done];
  for (const part of partsOf(task)) {
    if (partsDone.includes(part)) continue;
    const destination = part === 'output' ? task.destination!.output : task.destination!.thumbnail!;
    const outcome = await deps.sender.send(destination, part === 'output' ? outputKeyOf(task) : thumbnailKeyOf(task));
    if (outcome.type !== 'delivered') return { ...outcome, partsDone };
    partsDone.push(part);
  }
  return { type: 'delivered' };
}

/** The output, then the thumbnail when both a destination and a thumbnail exist (no thumbnail: the video alone delivers). */
function partsOf(task: Task): DeliveryPart[] {
  return task.destination?.thumbnail && task.thumbnailUrl ? ['output', 'thumbnail'] : ['output'];
}

/** Records the delivery; with `keep_output: false`, then deletes our copy as DELETE does. */
async function delivered(deps: DeliveryDeps, task: Task, delivery: Delivery): Promise<void> {
  const guard = { deliveryAttempts: task.delivery!.attempts };
  if (task.keepOutput !== false) {
    if (await move(deps.tasks, task, 'deliver', { at: delivery.deliveredAt!, set: { delivery }, remove: ['destination'], guard })) {
      deps.telemetry.count('DeliveryDelivered', { kind: task.kind });
    }
    return;
  }
  // Our copy leaves the outputs list only once its completion is announced (the outbox's rule).
  const announced = task.unannounced ? await announceEnded(deps, task) : task;
  const dropping = await move(deps.tasks, announced, 'deliverAndDrop', {
    at: delivery.deliveredAt!,
    set: { delivery, outputDeletedAt: delivery.deliveredAt! },
    remove: ['destination'],
    guard: { ...guard, announced: true },
  });
  if (!dropping) {
    // Still unannounced (the publication failed): record the delivery now, our copy stays.
    if (announced.unannounced) await move(deps.tasks, announced, 'deliver', { at: delivery.deliveredAt!, set: { delivery }, remove: ['destination'], guard });
    return;
  }
  deps.telemetry.count('DeliveryDelivered', { kind: task.kind });
  // A failed removal leaves it `deleting`: the sweeper finishes it.
  await purgeOutputs(deps, dropping);
}

/** Publishes `*.delivery_failed`, then marks it told; a failure leaves it owed (the message is retried). */
async function announceDeliveryFailure(deps: DeliveryDeps, task: Task): Promise<void> {
  await deps.events.deliveryFailed(task);
  const { eventOwed: _told, ...delivery } = task.delivery!;
  await move(deps.tasks, task, 'deliveryAnnounced', { set: { delivery } });
}
