import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { AccountBusyError } from '#domain/shared/errors';
import { endsTask, isFinal, statusOf, type Phase } from '#domain/tasks/phase';
import type { Delivery } from '#domain/tasks/destinations';
import { afterMove, type TaskPatch, type TaskPatchFields, type TransitionGuard } from '#domain/tasks/transitions';
import type { Task } from '#domain/tasks/task';
import { isConditionFailure, type Db } from '../dynamo-client';
import { endedEntryValues, type ListedPhase, OUTBOX_PREFIX, outputsPartition, phaseEntryValues, taskKey } from '../keys';
import { appendWithRetries, ledgerMoved, SAME_POSITION, slotAfter } from '../ledger-positions';
import { AGAIN, RetriesExhaustedError, retryOnConflict, withRetries } from '../retry';
import { feedAppendParts, feedRefusal, readFeedPosition } from '../event-feed-repository';
import { deliveryItem, fromTaskItem } from '../task-item';
import { transact, TransactionRefused } from '../transaction';
import { refusalOf, writeFailedEnding } from './refund-transaction';

/**
 * The store's one conditional write of a task (domain/tasks/transitions.ts): its condition is
 * the expected phase plus the event's guards, compiled here; its update the new phase (with
 * `phase_at = updated_at`, which makes the stored phase trusted, task-item.ts) and the patch.
 */

/** A condition with the names and values it uses. */
export interface Condition {
  expression: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
}

const BASE = '#status = :processing AND attribute_exists(seq)';
const WITHOUT_JOB = `${BASE} AND attribute_not_exists(pending_outputs) AND attribute_not_exists(provider_job_id)`;
/**
 * Each phase as the fields of an item without a trusted phase tell it: derivePhase (phase.ts)
 * as a condition. They go once nothing written before phases is in flight (design step C15).
 */
const LEGACY: Record<Phase, string> = {
  draft: '#status = :processing AND attribute_not_exists(seq)',
  claimed: `${WITHOUT_JOB} AND attribute_not_exists(queued_at) AND unsent = :true`,
  queued: `${WITHOUT_JOB} AND attribute_exists(queued_at)`,
  sending: `${WITHOUT_JOB} AND attribute_not_exists(queued_at) AND (attribute_not_exists(unsent) OR unsent <> :true)`,
  running: `${BASE} AND attribute_not_exists(pending_outputs) AND attribute_exists(provider_job_id)`,
  storing: `${BASE} AND attribute_exists(pending_outputs)`,
  completed: '#status = :completed',
  // Written only by this code, always with a trusted phase: no legacy item is in them.
  delivering: 'attribute_not_exists(pk)',
  deleting: 'attribute_not_exists(pk)',
  output_deleted: 'attribute_not_exists(pk)',
  failed: '#status = :failed',
};

/** The stored phase is one of `from`, trusted or told by the legacy fields, and every guard holds. */
export function transitionCondition(from: readonly Phase[], guard: TransitionGuard = {}): Condition {
  if (from.length === 0) throw new Error('A transition needs at least one phase to start from.');
  const listed = from.map((_, index) => `:from${index}`);
  const trusted = `(#phase IN (${listed.join(', ')}) AND phase_at = updated_at)`;
  // DynamoDB refuses redundant parentheses: one legacy rule goes in bare.
  const legacy = from.length === 1 ? LEGACY[from[0]!] : `(${from.map((phase) => `(${LEGACY[phase]})`).join(' OR ')})`;
  const untrusted = `((attribute_not_exists(#phase) OR attribute_not_exists(phase_at) OR phase_at <> updated_at) AND ${legacy})`;
  const terms = [`(${trusted} OR ${untrusted})`];
  const values: Record<string, unknown> = {
    ...Object.fromEntries(from.map((phase, index) => [`:from${index}`, phase])),
    ':processing': 'processing',
    ':completed': 'completed',
    ':failed': 'failed',
    ':true': true,
  };
  if (guard.sentAt !== undefined) {
    terms.push(guard.sentAt === null ? 'attribute_not_exists(sent_at)' : 'sent_at = :guardSentAt');
    values[':guardSentAt'] = guard.sentAt;
  }
  if (guard.jobId !== undefined) {
    terms.push('(attribute_not_exists(provider_job_id) OR provider_job_id = :guardJob)');
    values[':guardJob'] = guard.jobId;
  }
  if (guard.checkedBefore !== undefined) {
    terms.push('(attribute_not_exists(last_checked_at) OR last_checked_at <= :guardChecked)');
    values[':guardChecked'] = guard.checkedBefore;
  }
  if (guard.progressBelow !== undefined) {
    terms.push('(attribute_not_exists(progress) OR progress < :guardProgress)');
    values[':guardProgress'] = guard.progressBelow;
  }
  if (guard.reportedBefore !== undefined) {
    terms.push('(attribute_not_exists(reported_at) OR reported_at < :guardReported)');
    values[':guardReported'] = guard.reportedBefore;
  }
  if (guard.copyClaimedBefore !== undefined) {
    terms.push('(attribute_not_exists(copy_claimed_at) OR copy_claimed_at <= :guardCopy)');
    values[':guardCopy'] = guard.copyClaimedBefore;
  }
  if (guard.deliveryAttempts !== undefined) {
    terms.push(guard.deliveryAttempts === 0 ? '(attribute_not_exists(#delivery.attempts) OR #delivery.attempts = :guardAttempts)' : '#delivery.attempts = :guardAttempts');
    values[':guardAttempts'] = guard.deliveryAttempts;
  }
  if (guard.deliveryFree !== undefined) {
    terms.push('(attribute_not_exists(#delivery.claimed_until) OR #delivery.claimed_until < :guardFree)');
    values[':guardFree'] = guard.deliveryFree;
  }
  if (guard.stillDelivering) {
    // Written only with a trusted phase (LEGACY above).
    terms.push('#phase = :guardDelivering');
    values[':guardDelivering'] = 'delivering';
  }
  if (guard.announced) {
    // Out of the outbox: no index entry, or one that is not the outbox's.
    terms.push('(attribute_not_exists(gsi2pk) OR NOT begins_with(gsi2pk, :outbox))');
    values[':outbox'] = OUTBOX_PREFIX;
  }
  return { expression: terms.join(' AND '), names: { '#phase': 'phase', '#status': 'status', '#delivery': 'delivery' }, values };
}

/** Attribute per patch field (provider is three). */
const ATTRIBUTES: Record<Exclude<keyof TaskPatchFields, 'provider'>, string> = {
  queuedAt: 'queued_at',
  sentAt: 'sent_at',
  submitAttempts: 'submit_attempts',
  lastCheckedAt: 'last_checked_at',
  progress: 'progress',
  queuePosition: 'queue_position',
  reportedAt: 'reported_at',
  pendingOutputs: 'pending_outputs',
  copyClaimedAt: 'copy_claimed_at',
  outputUrls: 'output_urls',
  thumbnailUrl: 'thumbnail_url',
  error: '#error',
  completedAt: 'completed_at',
  outputDeletedAt: 'output_deleted_at',
  delivery: '#delivery',
};

/** Attribute per removable field. */
const REMOVABLE: Record<NonNullable<TaskPatch['remove']>[number], string> = {
  queuedAt: 'queued_at',
  pendingOutputs: 'pending_outputs',
  copyClaimedAt: 'copy_claimed_at',
  outputUrls: 'output_urls',
  thumbnailUrl: 'thumbnail_url',
  destination: 'destination',
};

interface Update {
  expression: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
}

/** A completion's entry in its partition's list of stored outputs (keys.ts OUTPUTS#), by completion. */
const outputsEntryValues = (task: Task) => ({ ':outputsPk': outputsPartition(task.partitionId), ':outputsSk': `${task.completedAt}#${task.taskId}` });

/** The update of a transition that writes no refund. */
export function transitionUpdate(task: Task, from: readonly Phase[], to: Phase | 'same', patch: TaskPatch): Update {
  const set: string[] = [];
  const remove: string[] = (patch.remove ?? []).map((field) => REMOVABLE[field]);
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  if (to !== 'same') {
    if (patch.at === undefined) throw new Error(`A move of task ${task.taskId} to ${to} needs its instant.`);
    set.push('#phase = :to', 'phase_at = :at', 'updated_at = :at', '#status = :status');
    Object.assign(names, { '#phase': 'phase', '#status': 'status' });
    Object.assign(values, { ':to': to, ':at': patch.at, ':status': statusOf(to) });
    // Dual write, for the code before phases (a rolling deploy, a rollback): its `unsent` mark.
    if (to === 'claimed' || to === 'queued') {
      set.push('unsent = :unsent');
      values[':unsent'] = true;
    } else if (!isFinal(to)) remove.push('unsent');
    // The index entry follows the phase: the sweeper reads each phase's own list, and an ended
    // task enters the outbox until its events are published. A rule's phases are all processing
    // or all ended, so its first one tells whether the move ends the task.
    if (endsTask(from[0]!, to)) {
      set.push('gsi2pk = :endedPk', 'gsi2sk = :endedSk');
      Object.assign(values, endedEntryValues(patch.at, task.taskId));
    } else if (to === 'output_deleted') {
      // Nothing left to do for it: in no list.
      remove.push('gsi2pk', 'gsi2sk');
    } else if (to === 'deleting' || statusOf(to) === 'processing') {
      if (to !== 'draft') {
        set.push('gsi2pk = :phasePk', 'gsi2sk = :phaseSk');
        Object.assign(values, phaseEntryValues(to as ListedPhase, patch.at, task.taskId));
      }
    } else if (task.phase === 'delivering' && !task.unannounced) {
      // A delivery's end, announced: from the deliveries' list to the stored outputs' (retention's).
      set.push('gsi2pk = :outputsPk', 'gsi2sk = :outputsSk');
      Object.assign(values, outputsEntryValues(task));
    }
    // Else an ended task between ended phases not announced yet: its entry stays (the outbox).
  }
  for (const [field, value] of Object.entries(patch.set ?? {}) as [keyof TaskPatchFields, unknown][]) {
    if (value === undefined) continue;
    if (field === 'provider') {
      const job = value as NonNullable<Task['provider']>;
      set.push('provider_name = :providerName', 'provider_job_id = :providerJob', 'provider_callbacks = :providerCallbacks');
      Object.assign(values, { ':providerName': job.name, ':providerJob': job.jobId, ':providerCallbacks': job.callbacks === true });
      continue;
    }
    const attribute = ATTRIBUTES[field];
    const placeholder = `:set_${field}`;
    if (attribute.startsWith('#')) names[attribute] = attribute.slice(1);
    set.push(`${attribute} = ${placeholder}`);
    values[placeholder] = field === 'delivery' ? deliveryItem(value as Delivery) : value;
  }
  if (patch.announced) {
    if (task.phase === 'delivering') {
      // A delivery leaves the outbox for the deliveries' list (the sweeper's DELIVERY_ROW), by when it began.
      set.push('gsi2pk = :phasePk', 'gsi2sk = :phaseSk');
      Object.assign(values, phaseEntryValues('delivering', task.updatedAt, task.taskId));
    } else if (task.status === 'completed' && task.completedAt) {
      // A completion leaves the outbox for the list of stored outputs the retention reads.
      set.push('gsi2pk = :outputsPk', 'gsi2sk = :outputsSk');
      Object.assign(values, outputsEntryValues(task));
    } else remove.push('gsi2pk', 'gsi2sk');
  }
  const clauses = [
    set.length > 0 && `SET ${set.join(', ')}`,
    remove.length > 0 && `REMOVE ${[...new Set(remove)].join(', ')}`,
    patch.countCopyFailure && 'ADD copy_attempts :one',
  ].filter(Boolean);
  if (patch.countCopyFailure) values[':one'] = 1;
  if (clauses.length === 0) throw new Error(`A transition of task ${task.taskId} that writes nothing.`);
  return { expression: clauses.join(' '), names, values };
}

/** Only the names and values an expression uses: DynamoDB refuses any other. */
export function used<T>(entries: Record<string, T>, ...expressions: string[]): Record<string, T> {
  const text = expressions.join(' ');
  return Object.fromEntries(Object.entries(entries).filter(([key]) => new RegExp(`${key}(?![A-Za-z0-9_])`).test(text)));
}

/** The task's conditional update: the condition and the update with only the names and values they use. */
function taskUpdate(db: Db, task: Task, condition: Condition, update: Update) {
  const names = { ...condition.names, ...update.names };
  const values = { ...condition.values, ...update.values };
  return {
    TableName: db.tableName,
    Key: taskKey(task.partitionId, task.taskId),
    UpdateExpression: update.expression,
    ConditionExpression: condition.expression,
    ExpressionAttributeNames: used(names, update.expression, condition.expression),
    ExpressionAttributeValues: used(values, update.expression, condition.expression),
  };
}

export async function transition(db: Db, task: Task, from: readonly Phase[], to: Phase | 'same', patch: TaskPatch): Promise<Task | undefined> {
  const condition = transitionCondition(from, patch.guard);
  if (patch.refund) return failWithRefund(db, task, to, condition, patch);
  if (patch.feedEntry) return announceWithEntry(db, task, from, to, condition, patch);
  const update = taskUpdate(db, task, condition, transitionUpdate(task, from, to, patch));
  try {
    // A transaction on the task (a cancel's or a timeout's refund) refuses this write while it runs.
    const { Attributes } = await retryOnConflict('task transition', () => db.doc.send(new UpdateCommand({ ...update, ReturnValues: 'ALL_NEW' })));
    return Attributes && fromTaskItem(Attributes);
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/**
 * A failure event: the ending and its refund in one transaction (refund-transaction.ts), at the
 * ledger's next position. The answer is the task as written, built from the patch: a
 * transaction hands nothing back, and a read after it would be one more round (design 32, 5.6).
 */
async function failWithRefund(db: Db, task: Task, to: Phase | 'same', condition: Condition, patch: TaskPatch): Promise<Task | undefined> {
  const { refund, at, set = {} } = patch;
  if (!refund || at === undefined || !set.error) throw new Error(`A failure of task ${task.taskId} needs its refund, its instant and its error.`);
  const guard = {
    condition: condition.expression,
    names: used(condition.names, condition.expression),
    values: used(condition.values, condition.expression),
  };
  const written = await appendWithRetries(
    db,
    task.partitionId,
    async (seen) => {
      const slot = slotAfter(seen ?? 0);
      try {
        await writeFailedEnding(db, { task, error: set.error!, refund, refundPosition: slot.position, now: at, slot, guard, progress: set.progress });
        return true;
      } catch (caught) {
        const refused = refusalOf(caught);
        if (refused?.task) return false;
        // Another ledger write took the position: append again after it.
        if (refused?.account) return ledgerMoved(caught as TransactionRefused<'account'>, 'account');
        // Another writer held an item (the account: a start, another refund; or the task). Try
        // the same position again, no read: if the task moved meanwhile, the next try's task
        // condition says so (and we stop); if the count moved, its refusal hands back the new one.
        if (refused?.conflict) return SAME_POSITION;
        throw caught;
      }
    },
    patch.ledgerSeen,
  ).catch((error: unknown) => {
    // Past the bound (a burst of starts on the account kept it): as a start's, a clean 429; the
    // transaction never committed, so the task is as it was and nothing is refunded.
    if (error instanceof RetriesExhaustedError) throw new AccountBusyError('Too many writes to this account at once. Nothing was changed; retry in a second.');
    throw error;
  });
  return written ? afterMove(task, to, patch) : undefined;
}

/**
 * An announce that writes the ending's feed entry (TaskPatch.feedEntry): the task's update and
 * the feed's two parts in one transaction. An entry already there (a repeat) leaves the announce
 * alone to do; a feed that moved is tried again after the position its refusal hands back.
 */
async function announceWithEntry(db: Db, task: Task, from: readonly Phase[], to: Phase | 'same', condition: Condition, patch: TaskPatch): Promise<Task | undefined> {
  const { feedEntry: entry, ...announce } = patch;
  if (!entry || !patch.announced) throw new Error(`A feed entry of task ${task.taskId} goes with its announce.`);
  const update = taskUpdate(db, task, condition, transitionUpdate(task, from, to, announce));
  const event = { eventId: entry.eventId, type: entry.type, payload: entry.payload, createdAt: entry.createdAt };
  let seen: number | undefined = entry.after;
  const outcome = await withRetries(`announce of ${task.taskId} with its feed entry`, async () => {
    const after = seen ?? (await readFeedPosition(db, task.partitionId));
    seen = undefined;
    try {
      await transact(db, [
        ['task', { Update: update }],
        ...feedAppendParts(db, task.partitionId, event, after),
      ]);
      return 'written' as const;
    } catch (error) {
      if (error instanceof TransactionRefused && error.failed('task')) return 'refused' as const;
      const feed = feedRefusal(error, after);
      if (feed === undefined) throw error;
      if (feed === 'exists') return 'published before' as const;
      if (typeof feed === 'number') seen = feed;
      return AGAIN;
    }
  });
  if (outcome === 'refused') return undefined;
  if (outcome === 'published before') return transition(db, task, from, to, announce);
  return afterMove(task, to, announce);
}
