import { newLedgerEntryId } from '../shared/ids';
import type { Task, TaskError } from '../tasks/task';

/**
 * The credit ledger is append-only: every change to a balance (grant, charge, refund, a pack's
 * purchase and its reversal) is one entry, written in the same DynamoDB transaction as the
 * balance change, so the balance always equals the sum of the ledger.
 */
export const LEDGER_KINDS = ['grant', 'charge', 'refund', 'purchase', 'reversal'] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

export interface LedgerEntry {
  entryId: string;
  accountId: string;
  kind: LedgerKind;
  /** Signed: grants, refunds and purchases are positive, charges and reversals negative. */
  amount: number;
  reason: string;
  /** The video or image task a charge or refund belongs to. */
  taskId?: string;
  createdAt: string;
}

export function ledgerSum(entries: readonly LedgerEntry[]): number {
  return entries.reduce((sum, entry) => sum + entry.amount, 0);
}

/** A start's charge: the task's price off the balance, dated with the task. */
export function chargeEntry(task: Pick<Task, 'accountId' | 'taskId' | 'kind' | 'params' | 'creditsUsed' | 'createdAt'>): LedgerEntry {
  return {
    entryId: newLedgerEntryId(),
    accountId: task.accountId,
    kind: 'charge',
    amount: -task.creditsUsed,
    reason: `${task.kind} generation (${task.params.model})`,
    taskId: task.taskId,
    createdAt: task.createdAt,
  };
}

/** The refund of a task ended by `error`: its whole price back, dated when it ended; a cancel is told apart from a failure in its reason. */
export function refundEntry(task: Pick<Task, 'accountId' | 'taskId' | 'kind' | 'creditsUsed'>, now: string, error: Pick<TaskError, 'code'>): LedgerEntry {
  return {
    entryId: newLedgerEntryId(),
    accountId: task.accountId,
    kind: 'refund',
    amount: task.creditsUsed,
    reason: refundReason(task.kind, error.code === 'canceled' ? 'canceled' : 'failed'),
    taskId: task.taskId,
    createdAt: now,
  };
}

/** A refund's reason in the history: what ended the task ("refund: video task canceled"). */
export function refundReason(kind: 'video' | 'image', endedBy: 'canceled' | 'failed'): string {
  return `refund: ${kind} task ${endedBy}`;
}
