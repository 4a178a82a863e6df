import { accountOfPartition } from '#domain/shared/partition';
import { expiresAt, type Retention } from '#domain/tasks/retention';
import type { Task } from '#domain/tasks/task';
import { stores } from './stores';

/**
 * A retention day in ms: 86,400 s, except on the local stack, whose tests shorten it with
 * RETENTION_DAY_SECONDS so an expiry runs within a test (the CDK never sets it).
 */
export function retentionDayMs(env: NodeJS.ProcessEnv = process.env): number {
  const seconds = Number(env.RETENTION_DAY_SECONDS ?? 86_400);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new Error(`RETENTION_DAY_SECONDS must be a positive number of seconds; got "${env.RETENTION_DAY_SECONDS}".`);
  return seconds * 1000;
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
