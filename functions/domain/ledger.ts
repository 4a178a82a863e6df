/**
 * The credit ledger is append-only: every change to a balance (grant, charge, refund) is one
 * entry, written in the same DynamoDB transaction as the balance change, so the balance always
 * equals the sum of the ledger.
 */
export type LedgerKind = 'grant' | 'charge' | 'refund';

export interface LedgerEntry {
  entryId: string;
  accountId: string;
  kind: LedgerKind;
  /** Signed: grants and refunds are positive, charges negative. */
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
