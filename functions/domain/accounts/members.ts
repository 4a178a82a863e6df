import { auditEntry, type AuditStamp } from '../shared/audit';
import type { HolderStore } from './ports';
import type { Role } from './roles';

/**
 * Adds a recorded holder to an account with a role (an operator's `member add`; an accepted
 * invitation), with its `member.joined` entry in the same write.
 */
export async function addMember(
  holders: HolderStore,
  member: { accountId: string; holderId: string; email: string; role: Role },
  stamp: AuditStamp,
  now: Date = new Date(),
): Promise<void> {
  const entry = auditEntry(stamp, member.accountId, 'member.joined', { type: 'member', id: member.holderId }, { email: member.email, role: member.role }, now);
  await holders.addMember(member.accountId, member.holderId, member.role, now.toISOString(), entry);
}
