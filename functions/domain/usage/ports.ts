import type { GroupKind } from './cells';

/** One usage cell as read: its group and the attributes asked for (a missing one reads 0). */
export interface UsageCellRead {
  group: string | null;
  values: Readonly<Record<string, number>>;
}

/** Reads a partition's usage cells (written by the task store with each charge and refund). */
export interface UsageReader {
  /** Every cell of one kind and period (`yyyy-mm` or `yyyy`), with only `attributes` read. */
  cells(partitionId: string, kind: GroupKind, period: string, attributes: readonly string[]): Promise<UsageCellRead[]>;
}
