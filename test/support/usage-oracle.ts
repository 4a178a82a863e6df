import type { LedgerStore } from '#domain/accounts/ports';
import type { TaskStore } from '#domain/tasks/ports';
import { groupOf } from '#domain/usage/cells';
import type { UsageFigures, UsageGrouping, UsageRow } from '#domain/usage/report';

/**
 * GET /usage computed from its definition (docs/interface.md, "Usage"), from the ledger and the
 * tasks, never from the roll-ups: `credits_charged` is −Σ of the charges dated in the range,
 * `credits_refunded` Σ of the refunds whose task's charge is dated there, `tasks` the number of
 * those charges; grants are not usage. Rows sorted as the report promises.
 */
export async function usageOracle(
  deps: { ledger: LedgerStore; tasks: TaskStore },
  partitionId: string,
  range: { from: string; to: string; groupBy: UsageGrouping },
): Promise<{ rows: UsageRow[]; totals: UsageFigures }> {
  const entries = await deps.ledger.listForAccount(partitionId);
  const charges = entries.filter((entry) => entry.kind === 'charge' && entry.taskId !== undefined && inRange(entry.createdAt.slice(0, 10), range));
  const rows = new Map<string | null, UsageRow>();
  if (range.groupBy === 'day') for (const day of days(range.from, range.to)) rows.set(day, zero(day));
  const chargeGroups = new Map<string, string | null>();
  const tasks = await Promise.all(charges.map((charge) => deps.tasks.get(partitionId, charge.taskId!)));
  for (const [index, charge] of charges.entries()) {
    const task = tasks[index];
    if (!task) throw new Error(`The charge ${charge.entryId} names task ${charge.taskId}, which does not exist.`);
    const group = range.groupBy === 'day' ? charge.createdAt.slice(0, 10) : groupOf(task, range.groupBy);
    chargeGroups.set(charge.taskId!, group);
    const row = rows.get(group) ?? zero(group);
    row.tasks += 1;
    row.creditsCharged += -charge.amount;
    row.creditsNet += -charge.amount;
    rows.set(group, row);
  }
  for (const refund of entries.filter((entry) => entry.kind === 'refund' && entry.taskId !== undefined && chargeGroups.has(entry.taskId))) {
    const row = rows.get(chargeGroups.get(refund.taskId!)!)!;
    row.creditsRefunded += refund.amount;
    row.creditsNet -= refund.amount;
  }
  const sorted = [...rows.values()].sort((a, b) =>
    range.groupBy === 'day' ? (a.group! < b.group! ? -1 : 1) : b.creditsNet - a.creditsNet || (a.group === null ? 1 : b.group === null ? -1 : a.group < b.group ? -1 : 1),
  );
  const totals = { tasks: 0, creditsCharged: 0, creditsRefunded: 0, creditsNet: 0 };
  for (const row of sorted) {
    totals.tasks += row.tasks;
    totals.creditsCharged += row.creditsCharged;
    totals.creditsRefunded += row.creditsRefunded;
    totals.creditsNet += row.creditsNet;
  }
  return { rows: sorted, totals };
}

const zero = (group: string | null): UsageRow => ({ group, tasks: 0, creditsCharged: 0, creditsRefunded: 0, creditsNet: 0 });
const inRange = (day: string, range: { from: string; to: string }) => day >= range.from && day <= range.to;

function days(from: string, to: string): string[] {
  const out: string[] = [];
  for (let day = Date.parse(from); day <= Date.parse(to); day += 86_400_000) out.push(new Date(day).toISOString().slice(0, 10));
  return out;
}
