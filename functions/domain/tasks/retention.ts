import type { AccountStore } from '../accounts/ports';
import { partitionOf } from '../shared/partition';
import { purgeOutputs, type OutputDeletionDeps } from './output-deletion';
import type { Task } from './task';
import { move } from './transitions';

/**
 * Output retention (CONTRACT.md, "Retention and deletion"; docs/decisions.md, "Expiry"): an
 * account that sets `output_retention_days` has the outputs of its tasks (both modes) deleted
 * once `completed_at + days` has passed, exactly as a DELETE would. Nothing is stored per task:
 * `expires_at` and the expiry's cutoff are the same formula of the same two values, so the view
 * and the deletion cannot disagree, and a change of the setting rewrites nothing.
 */

/** The retention in force: days, and the length of a day (a day is shorter on the local stack, for its tests). */
export interface Retention {
  days: number | undefined;
  dayMs: number;
}

/** When a task's outputs expire: for a completed task with its outputs, under a retention; otherwise null. */
export function expiresAt(task: Task, retention: Retention | undefined): string | null {
  if (!retention?.days || task.status !== 'completed' || task.outputDeletedAt || !task.completedAt) return null;
  return new Date(Date.parse(task.completedAt) + retention.days * retention.dayMs).toISOString();
}

export interface ExpiryDeps extends OutputDeletionDeps {
  accounts: Pick<AccountStore, 'get' | 'listWithRetention'>;
  dayMs: number;
  /** Real time in ms, for the run's budget. */
  realTime: () => number;
}

export interface ExpiryReport {
  accounts: number;
  expired: number;
  errors: number;
}

/** Tasks expired at once (each mostly waits on DynamoDB and S3). */
const CONCURRENCY = 16;

/**
 * One run of the expiry, from the sweeper every minute: for each account with a retention (its
 * own RETENTION# list), each partition's outputs listed by completion (OUTPUTS#) strictly before
 * `now - days`, deleted as DELETE deletes them (`deleteOutputs`, the objects, `purge`). A task is
 * read again (consistently) before it moves; the retention is read per account, so a lengthened one
 * stops the deletions of the next account listed. Stops picking up work at `stopAt`; what is left
 * is the next run's.
 */
export async function expireOutputs(deps: ExpiryDeps, options: { stopAt: number }): Promise<ExpiryReport> {
  const report: ExpiryReport = { accounts: 0, expired: 0, errors: 0 };
  for (const shard of deps.accounts.listWithRetention()) {
    for await (const accountId of shard) {
      if (deps.realTime() > options.stopAt) return report;
      const days = (await deps.accounts.get(accountId))?.outputRetentionDays;
      if (!days) continue;
      report.accounts += 1;
      const cutoff = new Date(deps.clock().getTime() - days * deps.dayMs).toISOString();
      for (const partitionId of [accountId, partitionOf(accountId, 'test')]) {
        const refs = deps.tasks.listCompletedBefore(partitionId, cutoff)[Symbol.asyncIterator]();
        await Promise.all(
          Array.from({ length: CONCURRENCY }, async () => {
            while (deps.realTime() <= options.stopAt) {
              const next = await refs.next();
              if (next.done) return;
              try {
                if (await expireOne(deps, partitionId, next.value.taskId, cutoff)) report.expired += 1;
              } catch (error) {
                report.errors += 1;
                deps.telemetry.error('expiry failed for task', error, { task_id: next.value.taskId });
              }
            }
          }),
        );
      }
    }
  }
  return report;
}

/** Deletes one task's outputs if it is still completed before the cutoff (the index lags; the read decides). */
async function expireOne(deps: ExpiryDeps, partitionId: string, taskId: string, cutoff: string): Promise<boolean> {
  const task = await deps.tasks.get(partitionId, taskId);
  if (!task || task.phase !== 'completed' || !task.completedAt || !(task.completedAt < cutoff)) return false;
  const at = deps.clock().toISOString();
  const deleting = await move(deps.tasks, task, 'deleteOutputs', { at, set: { outputDeletedAt: at }, guard: { announced: true } });
  if (!deleting) return false;
  await purgeOutputs(deps, deleting);
  return true;
}
