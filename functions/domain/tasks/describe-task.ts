import { type CircuitStore } from '../providers/ports';
import { type CircuitView, circuitOf } from '../providers/status';
import { NotFoundError } from '../shared/errors';
import type { TaskStore } from './ports';
import type { Task } from './task';

/** Where a task's create stands, in words (docs/tasks.md, "Submission"). */
export type SubmissionState = 'job recorded' | 'queued' | 'not sent yet' | 'sent, answer not known' | 'none';

export function submissionState(task: Task): SubmissionState {
  if (task.provider) return 'job recorded';
  switch (task.phase) {
    case 'queued':
      return 'queued';
    case 'draft':
    case 'claimed':
      return 'not sent yet';
    case 'sending':
      // A create went out and its answer was lost: its callback adopts the job, or the sweeper refunds after the grace.
      return 'sent, answer not known';
    default:
      return 'none';
  }
}

/** One task of a partition (an account's live id, or its test partition), with its provider's circuit when it has one. */
export async function describeTask(
  stores: { tasks: Pick<TaskStore, 'get'>; circuits: CircuitStore },
  partitionId: string,
  taskId: string,
  now: number,
): Promise<{ task: Task; circuit?: CircuitView }> {
  const task = await stores.tasks.get(partitionId, taskId);
  if (!task) throw new NotFoundError(`No task ${taskId} for account ${partitionId}.`);
  if (!task.provider) return { task };
  return { task, circuit: await circuitOf(stores.circuits, task.provider.name, now) };
}
