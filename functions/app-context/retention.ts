import { RETENTION } from '#config/retention';
import { readSetting, type Env } from '#config/setting';
import { accountOfPartition } from '#domain/shared/partition';
import { expiresAt, type Retention } from '#domain/tasks/retention';
import type { Task } from '#domain/tasks/task';
import { stores } from './stores';

/** A retention day in ms (RETENTION.daySeconds: 86,400 s except in the local stack's tests). */
export function retentionDayMs(env: Env = process.env): number {
  return readSetting(RETENTION.daySeconds, env) * 1000;
}

/** The retention in force for a partition's tasks: its account's (one GetItem of the live account item). */
export async function retentionOf(partitionId: string): Promise<Retention> {
  const account = await stores().accounts.get(accountOfPartition(partitionId));
  return { days: account?.outputRetentionDays, dayMs: retentionDayMs() };
}

/** A view's `expires_at` for each task of a partition, the retention read once. */
export async function expiryFor(partitionId: string): Promise<(task: Task) => string | null> {
  const retention = await retentionOf(partitionId);
  return (task) => expiresAt(task, retention);
}
