/**
 * Which usage items a range reads: whole months from the year items (one attribute per month),
 * the at most 2 partial edge months from the month items (one attribute per day). Dates are
 * `YYYY-MM-DD`, UTC, `from <= to`.
 */
export interface RangePlan {
  years: Array<{ year: string; months: string[] }>;
  partials: Array<{ month: string; days: string[] }>;
}

export const MAX_RANGE_DAYS = 366;
const DAY_MS = 86_400_000;

const pad = (value: number) => String(value).padStart(2, '0');
const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** Days from `from` to `to`, both included. */
export const daysBetween = (from: string, to: string): number => Math.round((Date.parse(to) - Date.parse(from)) / DAY_MS) + 1;

/** Every day of the range, ascending. */
export function daysOf(from: string, to: string): string[] {
  const start = Date.parse(from);
  return Array.from({ length: daysBetween(from, to) }, (_, index) => new Date(start + index * DAY_MS).toISOString().slice(0, 10));
}

/** Every month (`yyyy-mm`) the range overlaps, with its days in the range (`DD`). */
export function monthsOf(from: string, to: string): Array<{ month: string; days: string[]; whole: boolean }> {
  const months = new Map<string, string[]>();
  for (const day of daysOf(from, to)) {
    const month = day.slice(0, 7);
    months.set(month, [...(months.get(month) ?? []), day.slice(8, 10)]);
  }
  return [...months].map(([month, days]) => {
    const [year, number] = month.split('-').map(Number) as [number, number];
    return { month, days, whole: days.length === daysIn(year, number) };
  });
}

export function planRange(from: string, to: string): RangePlan {
  const years = new Map<string, string[]>();
  const partials: RangePlan['partials'] = [];
  for (const { month, days, whole } of monthsOf(from, to)) {
    if (!whole) partials.push({ month, days });
    else years.set(month.slice(0, 4), [...(years.get(month.slice(0, 4)) ?? []), month.slice(5, 7)]);
  }
  return { years: [...years].map(([year, months]) => ({ year, months })), partials };
}

/** The current UTC month, its 1st to its last day: the default range. */
export function currentMonth(now: Date): { from: string; to: string } {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth() + 1;
  return { from: `${year}-${pad(month)}-01`, to: `${year}-${pad(month)}-${pad(daysIn(year, month))}` };
}
