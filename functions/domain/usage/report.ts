import { GROUP_KINDS, YEAR_TOTAL, type GroupKind, type Measure } from './cells';
import type { UsageReader } from './ports';
import { ValidationError } from '../shared/errors';
import { currentMonth, daysBetween, daysOf, MAX_RANGE_DAYS, monthsOf, planRange } from './range';

export const USAGE_GROUPINGS = ['day', ...GROUP_KINDS] as const;
export type UsageGrouping = (typeof USAGE_GROUPINGS)[number];

export interface UsageFigures {
  tasks: number;
  creditsCharged: number;
  creditsRefunded: number;
  creditsNet: number;
}

export interface UsageRow extends UsageFigures {
  /** The day (`YYYY-MM-DD`), model id, key id or end user; null: no key (a session's starts) or no end user. */
  group: string | null;
}

export interface UsageReport {
  from: string;
  to: string;
  groupBy: UsageGrouping;
  rows: UsageRow[];
  totals: UsageFigures;
}

export interface UsageQuery {
  from?: string;
  to?: string;
  groupBy?: UsageGrouping;
}

const MEASURES: readonly Measure[] = ['t', 'c', 'r'];
const ZERO = (): UsageFigures => ({ tasks: 0, creditsCharged: 0, creditsRefunded: 0, creditsNet: 0 });

function add(into: UsageFigures, values: Readonly<Record<string, number>>, suffixes: readonly string[]): void {
  for (const suffix of suffixes) {
    const charged = values[`c${suffix}`] ?? 0;
    const refunded = values[`r${suffix}`] ?? 0;
    into.tasks += values[`t${suffix}`] ?? 0;
    into.creditsCharged += charged;
    into.creditsRefunded += refunded;
    into.creditsNet += charged - refunded;
  }
}

const attributesOf = (suffixes: readonly string[]) => suffixes.flatMap((suffix) => MEASURES.map((measure) => `${measure}${suffix}`));

/**
 * GET /usage (CONTRACT.md, "End users and metadata"): the caller's usage over a range, grouped,
 * from the roll-ups: its cost grows with days × groups, never with the number of tasks. The
 * query is already valid (contract/usage.ts); missing fields take the defaults (this UTC month,
 * by day). Every read is independent, so they all go at once.
 */
export async function getUsage(reader: UsageReader, partitionId: string, query: UsageQuery, now: Date): Promise<UsageReport> {
  const { from, to } = rangeOf(query, now);
  const groupBy = query.groupBy ?? 'day';
  const rows = groupBy === 'day' ? await byDay(reader, partitionId, from, to) : await byGroup(reader, partitionId, groupBy, from, to);
  const totals = ZERO();
  for (const row of rows) {
    totals.tasks += row.tasks;
    totals.creditsCharged += row.creditsCharged;
    totals.creditsRefunded += row.creditsRefunded;
    totals.creditsNet += row.creditsNet;
  }
  return { from, to, groupBy, rows, totals };
}

/**
 * The range asked for: a missing end is the current UTC month's (its 1st, its last day). A range
 * that ends before it starts, or longer than 366 days, is a 400 naming the field.
 */
export function rangeOf(query: UsageQuery, now: Date): { from: string; to: string } {
  const month = currentMonth(now);
  const from = query.from ?? month.from;
  const to = query.to ?? month.to;
  if (to < from) throw new ValidationError(`to: ${to} is before from (${from})`, query.to === undefined ? 'from' : 'to');
  if (daysBetween(from, to) > MAX_RANGE_DAYS) throw new ValidationError(`to: at most ${MAX_RANGE_DAYS} days after from (${from}), both included; got ${daysBetween(from, to)}`, 'to');
  return { from, to };
}

/** Every day of the range (zeros included, for a continuous axis): the sum over models of each month item's day. */
async function byDay(reader: UsageReader, partitionId: string, from: string, to: string): Promise<UsageRow[]> {
  const rows = new Map(daysOf(from, to).map((day) => [day, { group: day, ...ZERO() }]));
  await Promise.all(
    monthsOf(from, to).map(async ({ month, days }) => {
      for (const cell of await reader.cells(partitionId, 'model', month, attributesOf(days))) {
        for (const day of days) add(rows.get(`${month}-${day}`)!, cell.values, [day]);
      }
    }),
  );
  return [...rows.values()];
}

/**
 * One row per group with any task: whole months from year items (a whole calendar year from its
 * total), the edge months from month items.
 */
async function byGroup(reader: UsageReader, partitionId: string, kind: GroupKind, from: string, to: string): Promise<UsageRow[]> {
  const plan = planRange(from, to);
  const reads = [
    ...plan.years.map(({ year, months }) => ({ period: year, suffixes: months.length === 12 ? [YEAR_TOTAL] : months })),
    ...plan.partials.map(({ month, days }) => ({ period: month, suffixes: days })),
  ];
  const rows = new Map<string | null, UsageRow>();
  const results = await Promise.all(reads.map(async ({ period, suffixes }) => ({ suffixes, cells: await reader.cells(partitionId, kind, period, attributesOf(suffixes)) })));
  for (const { suffixes, cells } of results) {
    for (const cell of cells) {
      const row = rows.get(cell.group) ?? { group: cell.group, ...ZERO() };
      add(row, cell.values, suffixes);
      rows.set(cell.group, row);
    }
  }
  return [...rows.values()].filter((row) => row.tasks > 0).sort(byNetThenGroup);
}

/** Net descending, then group ascending with null last. */
function byNetThenGroup(a: UsageRow, b: UsageRow): number {
  if (a.creditsNet !== b.creditsNet) return b.creditsNet - a.creditsNet;
  if (a.group === b.group) return 0;
  if (a.group === null) return 1;
  if (b.group === null) return -1;
  return a.group < b.group ? -1 : 1;
}
