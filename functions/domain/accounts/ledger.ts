import { auditEntry, type AuditEntry, type AuditStamp } from '../shared/audit';
import { accountOfPartition } from '../shared/partition';

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

/** A refund's reason in the history: what ended the task ("refund: video task canceled"). */
export function refundReason(kind: 'video' | 'image', endedBy: 'canceled' | 'failed'): string {
  return `refund: ${kind} task ${endedBy}`;
}

/** The audit entry of a grant (an operator's, or test credits a holder added): the amount and reason, by the ledger entry's id. */
export const grantAudit = (stamp: AuditStamp, action: 'credits.granted' | 'credits.test_added', entry: LedgerEntry): AuditEntry =>
  auditEntry(stamp, entry.accountId, action, { type: 'account', id: accountOfPartition(entry.accountId) }, { amount: entry.amount, reason: entry.reason, ledger_entry_id: entry.entryId }, new Date(entry.createdAt));
