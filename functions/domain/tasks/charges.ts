import { newLedgerEntryId } from '../shared/ids';
import { refundReason, type LedgerEntry } from '../accounts/ledger';
import type { Task, TaskError } from './task';

/** The ledger entries a task makes: its charge when it starts, its refund when it fails. */

/** What a task has had back: its whole price once it failed (every failure and cancel refunds in full), else 0. */
export const creditsRefunded = (task: Pick<Task, 'status' | 'creditsUsed'>): number => (task.status === 'failed' ? task.creditsUsed : 0);

/** A start's charge: the task's price off the balance, dated with the task. */
export function chargeEntry(task: Pick<Task, 'partitionId' | 'taskId' | 'kind' | 'params' | 'creditsUsed' | 'createdAt'>): LedgerEntry {
  return {
    entryId: newLedgerEntryId(),
    accountId: task.partitionId,
    kind: 'charge',
    amount: -task.creditsUsed,
    reason: `${task.kind} generation (${task.params.model})`,
    taskId: task.taskId,
    createdAt: task.createdAt,
  };
}

/** The refund of a task ended by `error`: its whole price back, dated when it ended; a cancel is told apart from a failure in its reason. */
export function refundEntry(task: Pick<Task, 'partitionId' | 'taskId' | 'kind' | 'creditsUsed'>, now: string, error: Pick<TaskError, 'code'>): LedgerEntry {
  return {
    entryId: newLedgerEntryId(),
    accountId: task.partitionId,
    kind: 'refund',
    amount: task.creditsUsed,
    reason: refundReason(task.kind, error.code === 'canceled' ? 'canceled' : 'failed'),
    taskId: task.taskId,
    createdAt: now,
  };
}
