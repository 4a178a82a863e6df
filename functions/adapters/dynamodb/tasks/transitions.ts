import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { LedgerEntry } from '#domain/accounts/ledger';
import type { FailOptions } from '#domain/tasks/ports';
import type { ProviderJob, Task, TaskError } from '#domain/tasks/task';
import { isConditionFailure, type Db } from '../dynamo-client';
import { endedEntryValues, taskKey } from '../keys';
import { appendWithRetries, slotAfter } from '../ledger-positions';
import { AGAIN, retryOnConflict } from '../retry';
import { getTask } from './queries';
import { refusalOf, writeFailedEnding } from './refund-transaction';

/**
 * The state transitions of a started task: one conditional write each, the guard in its
 * condition expression, so of racing callers exactly the ones the guard admits succeed.
 */

export function recordSubmission(db: Db, task: Task, provider: ProviderJob, now: string): Promise<boolean> {
  return conditionalUpdate(db, task, {
    UpdateExpression:
      'SET provider_name = :name, provider_job_id = :job, provider_callbacks = :callbacks, last_checked_at = :now, updated_at = :now REMOVE queued_at, unsent',
    // A second record of the same job (a callback racing the create's answer) is harmless.
    ConditionExpression: '#status = :processing AND (attribute_not_exists(provider_job_id) OR provider_job_id = :job)',
    ExpressionAttributeValues: { ':name': provider.name, ':job': provider.jobId, ':callbacks': provider.callbacks === true, ':now': now },
  });
}

export function markQueued(db: Db, task: Task, now: string, attempts: number): Promise<boolean> {
  // Still as the caller saw it: unsent, or sent by the caller itself (its create was refused).
  const unchanged = task.unsent
    ? { condition: 'attribute_exists(unsent)', values: {} }
    : task.sentAt
      ? { condition: 'attribute_not_exists(unsent) AND sent_at = :sentAt', values: { ':sentAt': task.sentAt } }
      : { condition: 'attribute_not_exists(unsent) AND attribute_not_exists(sent_at)', values: {} };
  return conditionalUpdate(db, task, {
    UpdateExpression: 'SET queued_at = :now, submit_attempts = :attempts, unsent = :true, updated_at = :now',
    ConditionExpression: `#status = :processing AND attribute_not_exists(provider_job_id) AND attribute_not_exists(queued_at) AND ${unchanged.condition}`,
    ExpressionAttributeValues: { ':now': now, ':attempts': attempts, ':true': true, ...unchanged.values },
  });
}

export function claimQueued(db: Db, task: Task, now: string): Promise<boolean> {
  return conditionalUpdate(db, task, {
    // A task queued before the unsent mark existed gets it here: nothing of it was sent.
    UpdateExpression: 'SET unsent = :true, updated_at = :now REMOVE queued_at',
    ConditionExpression: '#status = :processing AND attribute_not_exists(provider_job_id) AND attribute_exists(queued_at)',
    ExpressionAttributeValues: { ':now': now, ':true': true },
  });
}

export function markSent(db: Db, task: Task, now: string): Promise<boolean> {
  return conditionalUpdate(db, task, {
    UpdateExpression: 'SET sent_at = :now, updated_at = :now REMOVE unsent',
    ConditionExpression:
      '#status = :processing AND attribute_exists(unsent) AND attribute_not_exists(queued_at) AND attribute_not_exists(provider_job_id)',
    ExpressionAttributeValues: { ':now': now },
  });
}

export function claimCheck(db: Db, task: Task, now: Date, minIntervalMs: number): Promise<boolean> {
  const cutoff = new Date(now.getTime() - minIntervalMs).toISOString();
  return conditionalUpdate(db, task, {
    UpdateExpression: 'SET last_checked_at = :now',
    ConditionExpression: '#status = :processing AND (attribute_not_exists(last_checked_at) OR last_checked_at <= :cutoff)',
    ExpressionAttributeValues: { ':now': now.toISOString(), ':cutoff': cutoff },
  });
}

export function recordOutputs(db: Db, task: Task, outputUrls: string[], now: string): Promise<boolean> {
  return conditionalUpdate(db, task, {
    UpdateExpression: 'SET pending_outputs = :urls, updated_at = :now',
    ConditionExpression: '#status = :processing AND attribute_not_exists(pending_outputs)',
    ExpressionAttributeValues: { ':urls': outputUrls, ':now': now },
  });
}

export function claimCopy(db: Db, task: Task, now: Date, leaseMs: number): Promise<boolean> {
  const cutoff = new Date(now.getTime() - leaseMs).toISOString();
  return conditionalUpdate(db, task, {
    UpdateExpression: 'SET copy_claimed_at = :now',
    ConditionExpression: '#status = :processing AND attribute_exists(pending_outputs) AND (attribute_not_exists(copy_claimed_at) OR copy_claimed_at <= :cutoff)',
    ExpressionAttributeValues: { ':now': now.toISOString(), ':cutoff': cutoff },
  });
}

export async function recordCopyFailure(db: Db, task: Task, now: string): Promise<number | undefined> {
  try {
    const { Attributes } = await db.doc.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: taskKey(task.partitionId, task.taskId),
        // The claim goes with the failure: the next ask (the sweeper's) copies at once.
        UpdateExpression: 'ADD copy_attempts :one SET updated_at = :now REMOVE copy_claimed_at',
        // A final task never changes again, not even its copy counter.
        ConditionExpression: '#status = :processing',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':one': 1, ':now': now, ':processing': 'processing' },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(Attributes?.copy_attempts ?? 0);
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

export function complete(db: Db, task: Task, outputUrls: string[], now: string, thumbnailUrl?: string): Promise<boolean> {
  return conditionalUpdate(db, task, {
    UpdateExpression:
      'SET #status = :completed, output_urls = :urls, completed_at = :now, updated_at = :now, gsi2pk = :endedPk, gsi2sk = :endedSk' +
      (thumbnailUrl ? ', thumbnail_url = :thumbnail' : '') +
      ' REMOVE pending_outputs',
    ConditionExpression: '#status = :processing',
    ExpressionAttributeValues: {
      ':completed': 'completed',
      ':urls': outputUrls,
      ':now': now,
      ...(thumbnailUrl && { ':thumbnail': thumbnailUrl }),
      ...endedEntryValues(now, task.taskId),
    },
  });
}

/** processing -> failed with its refund (refund-transaction.ts), appended at the ledger's next position. */
export function failAndRefund(
  db: Db,
  task: Task,
  error: TaskError,
  refund: LedgerEntry,
  now: string,
  options: FailOptions = {},
): Promise<boolean> {
  const guard = {
    condition: [
      '#status = :processing',
      ...(options.onlyIfUnsubmitted ? ['attribute_not_exists(provider_job_id)'] : []),
      ...(options.onlyBeforeOutputs ? ['attribute_not_exists(pending_outputs)'] : []),
    ].join(' AND '),
    values: { ':processing': 'processing' },
  };
  // The refund's ledger position is appended to on the condition that the count has not moved.
  return appendWithRetries(db, task.partitionId, async (seen) => {
    const slot = slotAfter(seen ?? 0);
    try {
      await writeFailedEnding(db, { task, error, refund, refundPosition: slot.position, now, slot, guard, progress: options.progress });
      return true;
    } catch (caught) {
      const refused = refusalOf(caught);
      if (refused?.task) return false;
      // Another ledger write took the position: append again after it.
      if (refused?.account) return AGAIN;
      // Lost a race with another writer of the same task: whoever won decided its fate.
      if (refused?.conflict) {
        const latest = await getTask(db, task.partitionId, task.taskId);
        if (latest && latest.status !== 'processing') return false;
        // A writer of the account item (a start, another refund) held it: try again.
        return AGAIN;
      }
      throw caught;
    }
  });
}

export async function recordProgress(db: Db, task: Task, progress: number): Promise<void> {
  await conditionalUpdate(db, task, {
    UpdateExpression: 'SET progress = :progress',
    ConditionExpression: '#status = :processing AND (attribute_not_exists(progress) OR progress < :progress)',
    ExpressionAttributeValues: { ':progress': progress },
  });
}

/** Takes an ended task out of the outbox (its gsi2 entry); a processing task keeps its in-flight entry. */
export async function markAnnounced(db: Db, task: Task): Promise<void> {
  try {
    await db.doc.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: taskKey(task.partitionId, task.taskId),
        UpdateExpression: 'REMOVE gsi2pk, gsi2sk',
        ConditionExpression: '#status <> :processing',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':processing': 'processing' },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

async function conditionalUpdate(
  db: Db,
  task: Task,
  update: { UpdateExpression: string; ConditionExpression: string; ExpressionAttributeValues: Record<string, unknown> },
): Promise<boolean> {
  try {
    // A transaction on the task (a cancel's or a timeout's refund) refuses this write while it runs.
    await retryOnConflict('task transition', () =>
      db.doc.send(
        new UpdateCommand({
          TableName: db.tableName,
          Key: taskKey(task.partitionId, task.taskId),
          ...update,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':processing': 'processing' },
        }),
      ),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
