import type { CreditTransaction } from '#client';
import { csvText } from './csv';

/** Pure helpers of the Overview and Usage pages (unit-tested in test/unit/console-usage.test.ts). */

export interface DaySpend {
  /** YYYY-MM-DD (UTC). */
  day: string;
  /** Credits charged that day less that day's refunds (never below zero). */
  credits: number;
}

const DAY_MS = 86_400_000;

/** Spend per UTC day for the `days` days ending today, oldest first, days without spend included. */
export function spendPerDay(transactions: readonly CreditTransaction[], now: Date, days = 30): DaySpend[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const totals = new Map<string, number>();
  for (let i = days - 1; i >= 0; i -= 1) totals.set(new Date(today - i * DAY_MS).toISOString().slice(0, 10), 0);
  for (const transaction of transactions) {
    if (transaction.type !== 'charge' && transaction.type !== 'refund') continue;
    const day = transaction.created_at.slice(0, 10);
    const total = totals.get(day);
    if (total !== undefined) totals.set(day, total - transaction.amount);
  }
  return [...totals].map(([day, credits]) => ({ day, credits: Math.max(0, credits) }));
}

/**
 * The y-axis of a chart whose highest value is `max`: round steps (1, 2 or 5 times a power of
 * ten) from 0 to the first step at or above `max`, at most `most` steps; at least 0 to 10, so an
 * empty month still has a readable scale.
 */
export function axisTicks(max: number, most = 4): number[] {
  const top = Math.max(max, 10);
  const rough = top / most;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((factor) => factor * magnitude).find((candidate) => candidate >= rough)!;
  const steps = Math.ceil(top / step);
  return Array.from({ length: steps + 1 }, (_, index) => index * step);
}

const CSV_COLUMNS = ['transaction_id', 'created_at', 'type', 'amount', 'task_id', 'reason'] as const;

/** RFC 4180 CSV of transactions (csv.ts). */
export function transactionsCsv(transactions: readonly CreditTransaction[]): string {
  return csvText(CSV_COLUMNS, transactions.map((transaction) => CSV_COLUMNS.map((column) => transaction[column])));
}

export type UsageGrouping = 'day' | 'model' | 'key' | 'end_user';

/** GET /usage's groupings, as the report's picker names them. */
export const USAGE_GROUPINGS: ReadonlyArray<{ value: UsageGrouping; label: string }> = [
  { value: 'day', label: 'Day' },
  { value: 'model', label: 'Model' },
  { value: 'key', label: 'API key' },
  { value: 'end_user', label: 'End user' },
];

/** This UTC month so far: GET /usage's own default range, as dates the pickers show. */
export function monthSoFar(now: Date): { from: string; to: string } {
  const to = now.toISOString().slice(0, 10);
  return { from: `${to.slice(0, 8)}01`, to };
}

/** A report row's group in words: null is "no key" (a console session's starts) or "no end user". */
export function groupLabel(grouping: UsageGrouping, group: string | null): string {
  if (group !== null) return group;
  return grouping === 'key' ? 'no key (console)' : grouping === 'end_user' ? 'no end user' : '—';
}

