import type { Task } from '../tasks/task';

/**
 * Usage roll-ups (docs/data-model.md, "Usage roll-ups"): what a charge and its refund add to the
 * account's usage cells, in the same transaction as the charge (the start) and the refund. Per
 * kind of group there is a month item (one attribute per day) and a year item (one attribute per
 * month, and the year's total), so a report reads a few items per group whatever the number of tasks. `day` is read
 * from the `model` month items (every task has a model).
 */
export const GROUP_KINDS = ['model', 'key', 'end_user'] as const;
export type GroupKind = (typeof GROUP_KINDS)[number];

/** `t` tasks charged, `c` credits charged, `r` credits refunded; then the day (`DD`), the month (`MM`) or `y`. */
export type Measure = 't' | 'c' | 'r';

/**
 * The year item's total suffix (`ty`, `cy`, `ry`): the sum of its 12 months, added by the same
 * ADD as the month, so a whole calendar year reads 3 attributes per group instead of 36. Every
 * year item has it: the roll-ups and the total came in the same unreleased wave (docs/decisions.md).
 */
export const YEAR_TOTAL = 'y';

export interface UsageCell {
  kind: GroupKind;
  /** `yyyy-mm` for a month item (day attributes), `yyyy` for a year item (month attributes). */
  period: string;
  /** The model, the API key id or the end user; null: no key (a session start) or no end user. */
  group: string | null;
  /** Attribute name → amount to add (attributes are created at 0 when missing). */
  add: Record<string, number>;
}

export type UsageTask = Pick<Task, 'createdAt' | 'creditsUsed' | 'params' | 'chargedTo' | 'endUser'>;

export function groupOf(task: UsageTask, kind: GroupKind): string | null {
  if (kind === 'model') return task.params.model;
  if (kind === 'key') return task.chargedTo?.keyId ?? null;
  return task.endUser ?? null;
}

/**
 * The 6 cells a charge (or its refund) touches. A refund counts on the day of its charge, as a
 * key's spend gives the refund back to the month of its charge: a range's net is then what the
 * tasks started in it finally cost.
 */
export function usageCellsOf(task: UsageTask, what: 'charge' | 'refund'): UsageCell[] {
  const month = task.createdAt.slice(5, 7);
  const day = task.createdAt.slice(8, 10);
  const add = (suffix: string): Record<string, number> =>
    what === 'charge' ? { [`t${suffix}`]: 1, [`c${suffix}`]: task.creditsUsed } : { [`r${suffix}`]: task.creditsUsed };
  return GROUP_KINDS.flatMap((kind) => [
    { kind, period: task.createdAt.slice(0, 7), group: groupOf(task, kind), add: add(day) },
    { kind, period: task.createdAt.slice(0, 4), group: groupOf(task, kind), add: { ...add(month), ...add(YEAR_TOTAL) } },
  ]);
}
