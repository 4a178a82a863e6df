import { AccountBusyError, TaskNotFinalError } from '../shared/errors';
import type { Telemetry } from '../shared/telemetry';
import { ownTask } from './get-task';
import { announceEnded } from './lifecycle/endings';
import { storedKeys } from './lifecycle/outputs';
import type { MediaStore, TaskEndings, TaskStore } from './ports';
import { narrowTask, type Task, type TaskKind, type TaskOfKind } from './task';
import { move } from './transitions';
import { withProgress } from './progress';

/** What deleting a task's outputs needs: the task, our storage, and the outbox (a completion not announced yet). */
export interface OutputDeletionDeps {
  tasks: TaskStore;
  media: Pick<MediaStore, 'remove'>;
  events: TaskEndings;
  clock: () => Date;
  telemetry: Telemetry;
}

/** Rounds of read-and-decide before giving up: each lost one means another writer moved the task meanwhile. */
const ROUNDS = 3;

/**
 * DELETE /videos/{id}, /images/{id} (CONTRACT.md, "Retention and deletion"): a final task's
 * stored outputs leave our storage; the task stays with `outputDeletedAt` and no result URLs.
 * A completed task goes `deleting` (the view already says deleted), its objects are removed, then
 * `purge` ends it `output_deleted`; the answer comes after the removal, so the old URLs already
 * answer 404. Idempotent: a second call answers the same task. Charges are never touched. A task
 * still processing, or being delivered to the start's destination, is TaskNotFinalError (409); another account's, unknown, other-kind ids 404.
 */
export async function deleteTaskOutputs<K extends TaskKind>(deps: OutputDeletionDeps, partitionId: string, kind: K, taskId: string): Promise<TaskOfKind<K>> {
  // As a read shows it (progress 100 once completed), so the answer and a GET agree.
  return withProgress(narrowTask(await deleteOutputs(deps, partitionId, kind, taskId), kind), deps.clock());
}

async function deleteOutputs(deps: OutputDeletionDeps, partitionId: string, kind: TaskKind, taskId: string): Promise<Task> {
  for (let round = 0; round < ROUNDS; round += 1) {
    // Consistent: a second DELETE right after the first sees its write.
    const task = round === 0 ? await ownTask(deps.tasks, partitionId, kind, taskId) : await deps.tasks.get(partitionId, taskId);
    if (!task) break;
    switch (task.phase) {
      case 'output_deleted':
        return task;
      case 'deleting':
        return purgeOutputs(deps, task);
      case 'failed': {
        if (task.outputDeletedAt) return task;
        // Nothing of it is stored: the mark alone, so it reads like any deleted task.
        const marked = await move(deps.tasks, task, 'markDeleted', { set: { outputDeletedAt: deps.clock().toISOString() } });
        if (marked) return marked;
        continue;
      }
      case 'completed': {
        // Its ending not announced yet (a publication cut short): announce it first, so the move
        // out of the outbox loses no `*.completed` event.
        const announced = task.unannounced ? await announceEnded(deps, task) : task;
        const at = deps.clock().toISOString();
        const deleting = await move(deps.tasks, announced, 'deleteOutputs', { at, set: { outputDeletedAt: at }, guard: { announced: true } });
        if (deleting) return purgeOutputs(deps, deleting);
        continue;
      }
      case 'delivering':
        // Completed, but our copy is what the delivery worker streams to the destination: removing
        // it would break a delivery the start asked for. Deletable once the delivery ends (design-35).
        throw new TaskNotFinalError(`The ${kind} ${taskId} is being delivered to your storage (output_destination): retry the deletion once its delivery.status is no longer pending.`);
      default:
        throw new TaskNotFinalError(`The ${kind} ${taskId} is still processing: only a completed or failed task's outputs can be deleted.`);
    }
  }
  throw new AccountBusyError('The task changed while its outputs were being deleted. Retry in a second.');
}

/**
 * Removes a `deleting` task's objects, then ends it `output_deleted`. A failed removal throws and
 * leaves it `deleting`: the sweeper finishes it (sweep.ts). Safe to repeat.
 */
export async function purgeOutputs(deps: Pick<OutputDeletionDeps, 'tasks' | 'media' | 'clock' | 'telemetry'>, task: Task): Promise<Task> {
  const keys = storedKeys(task);
  await Promise.all(keys.map((key) => deps.media.remove(key)));
  const purged = await move(deps.tasks, task, 'purge', { at: deps.clock().toISOString(), remove: ['outputUrls', 'thumbnailUrl'] });
  if (purged) deps.telemetry.info('task outputs deleted', { task_id: task.taskId, account_id: task.partitionId, objects: keys.length });
  // Refused: a racing purge ended it first.
  return purged ?? (await deps.tasks.get(task.partitionId, task.taskId)) ?? task;
}
