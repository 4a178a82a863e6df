import type { AuditEntry } from '../shared/audit';
import { accountOfPartition } from '../shared/partition';
import type { AuditLog } from '../shared/ports';

/** GET /audit-events: an account's audit log, newest first, whatever mode the session is in. */
export const AUDIT_PAGE = { defaultLimit: 50, maxLimit: 100 } as const;

export interface AuditEventsPage {
  entries: AuditEntry[];
  hasMore: boolean;
  /** The last entry's id, to pass as `after`; null when there is no more. */
  nextAfter: string | null;
}

export async function listAuditEvents(log: AuditLog, partitionId: string, after: string | undefined, limit: number): Promise<AuditEventsPage> {
  // One log per account: test-mode changes are in it too (marked `mode: "test"`).
  const { entries, hasMore } = await log.page(accountOfPartition(partitionId), after, limit);
  return { entries, hasMore, nextAfter: hasMore ? entries.at(-1)!.id : null };
}
