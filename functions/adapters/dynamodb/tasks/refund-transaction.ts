import type { LedgerEntry } from '#domain/accounts/ledger';
import type { Task, TaskError } from '#domain/tasks/task';
import { balanceCredit, PENDING_STARTS } from '../account-repository';
import type { Db } from '../dynamo-client';
import { endedEntryValues, endUserSpendKey, keySpendKey, taskHistoryKey, taskKey } from '../keys';
import { PENDING_CHARGES, type LedgerSlot } from '../ledger-positions';
import { ledgerEntryPut } from '../ledger-repository';
import { transact, TransactionRefused } from '../transaction';
import { usageParts } from '../usage/usage-parts';
import { endUserSettle } from './end-user-history';

/**
 * A task that fails and gets its price back, as every failure writes it (a timeout, a cancel, a
 * lost submission, the repair of a start cut short): one transaction, so the refund happens
 * exactly once however many callers race.
 */
export interface FailedEnding {
  task: Task;
  error: TaskError;
  /** The domain's refund entry (ledger.ts refundEntry). */
  refund: LedgerEntry;
  refundPosition: number;
  now: string;
  /** The account's ledger count as read, and the guard that keeps it true. */
  slot: LedgerSlot;
  /** What the stored task must still be for this caller (its condition expression). */
  guard: { condition: string; names?: Record<string, string>; values?: Record<string, unknown> };
  /** The progress the failed task keeps. */
  progress?: number;
  /**
   * A start cut short after its charge (start-repair.ts): the task also takes its history
   * position (`task.seq`), the charge goes to the ledger, and the start's note on the account
   * (which must still be there) is removed; and its end user's noted position, when it has one.
   */
  start?: { charge: LedgerEntry; chargePosition: number; endUserSeq?: number };
}

export async function writeFailedEnding(db: Db, ending: FailedEnding): Promise<void> {
  const { task, error, refund, now, slot, guard, progress, start } = ending;
  const endUser = start?.endUserSeq === undefined ? undefined : endUserSettle(db, task, start.endUserSeq);
  const set = [
    '#status = :failed',
    // The phase with its instant (trusted: phase_at = updated_at, task-item.ts).
    '#phase = :failed',
    'phase_at = :now',
    '#error = :error',
    'completed_at = :now',
    'updated_at = :now',
    // The in-flight entry becomes an outbox entry until the task's events are published.
    'gsi2pk = :endedPk',
    'gsi2sk = :endedSk',
    ...(progress === undefined ? [] : ['progress = :progress']),
    ...(start ? ['seq = :seq', 'lsi1sk = :position'] : []),
    ...(endUser?.set ?? []),
  ];
  const credit = balanceCredit(db, task.partitionId, refund.amount, now, slot);
  await transact(db, [
    [
      'task',
      {
        Update: {
          TableName: db.tableName,
          Key: taskKey(task.partitionId, task.taskId),
          UpdateExpression: `SET ${set.join(', ')} REMOVE pending_outputs`,
          ConditionExpression: guard.condition,
          ExpressionAttributeNames: { ...guard.names, '#status': 'status', '#error': 'error', '#phase': 'phase' },
          ExpressionAttributeValues: {
            ...guard.values,
            ':failed': 'failed',
            ':error': { code: error.code, message: error.message },
            ':now': now,
            ...endedEntryValues(now, task.taskId),
            ...(progress !== undefined && { ':progress': progress }),
            ...(start && { ':seq': task.seq, ':position': taskHistoryKey(task.kind, task.seq) }),
            ...endUser?.values,
          },
        },
      },
    ],
    [
      'account',
      {
        Update: start
          ? {
              ...credit,
              // Conditioned on the start's note, so a start is settled at most once.
              UpdateExpression: `${credit.UpdateExpression} REMOVE #pending.#task, #charges.#task`,
              ConditionExpression: `${credit.ConditionExpression} AND #pending.#task = :seq`,
              ExpressionAttributeNames: { ...credit.ExpressionAttributeNames, '#pending': PENDING_STARTS, '#charges': PENDING_CHARGES, '#task': task.taskId },
              ExpressionAttributeValues: { ...credit.ExpressionAttributeValues, ':seq': task.seq },
            }
          : credit,
      },
    ],
    ['refund', { Put: ledgerEntryPut(db, refund, ending.refundPosition) }],
    start && ['charge', { Put: ledgerEntryPut(db, start.charge, start.chargePosition) }],
    endUser?.part,
    // A task started through an API key gives its credits back to the month its charge counted in.
    task.chargedTo && [
      'keySpend',
      {
        Update: {
          TableName: db.tableName,
          Key: keySpendKey(task.chargedTo.keyId, task.chargedTo.month),
          UpdateExpression: 'ADD spent :back',
          ExpressionAttributeValues: { ':back': -refund.amount },
        },
      },
    ],
    // And to the month of the end user it named, through that key (the room under its limit comes back).
    task.chargedTo?.endUser !== undefined && [
      'endUserSpend',
      {
        Update: {
          TableName: db.tableName,
          Key: endUserSpendKey(task.chargedTo.keyId, task.chargedTo.month, task.chargedTo.endUser),
          UpdateExpression: 'ADD spent :back',
          ExpressionAttributeValues: { ':back': -refund.amount },
        },
      },
    ],
    // The refund in the usage roll-ups, on its charge's day; a task started before they existed has no charge there to offset.
    ...(task.usageCounted ? usageParts(db, task, 'refund') : []),
  ]);
}

/** Which parts of a cancelled fail-and-refund refused it; undefined for any other error. */
export interface Refusal {
  /** The task is no longer what the guard asked for. */
  task: boolean;
  /** The ledger count moved (or the start's note, or its end user's, went). */
  account: boolean;
  /** A ledger entry of that id exists. */
  ledger: boolean;
  /** Another transaction held one of the items. */
  conflict: boolean;
}

export function refusalOf(caught: unknown): Refusal | undefined {
  if (!(caught instanceof TransactionRefused)) return undefined;
  const refused = caught as TransactionRefused<'task' | 'account' | 'refund' | 'charge' | 'keySpend' | 'endUserSpend' | 'endUser'>;
  return {
    task: refused.failed('task'),
    account: refused.failed('account') || refused.failed('endUser'),
    ledger: refused.failed('refund') || refused.failed('charge'),
    conflict: refused.conflict,
  };
}
