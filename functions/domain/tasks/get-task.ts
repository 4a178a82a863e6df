import { NotFoundError } from '../shared/errors';
import { withProgress } from './progress';
import type { TaskStore } from './ports';
import { isTaskOfKind, narrowTask, type Task, type TaskKind, type TaskOfKind } from './task';
import { typicalMsOf } from './task-timing';
import { withTiming } from './timing';
import { refreshTask } from './lifecycle/outcomes';
import { type LifecycleDeps } from './lifecycle/deps';

/**
 * A task of the caller's, refreshed from the provider while processing. Another account's
 * task, a task of the other kind and an unknown id are the same 404.
 */
export async function getTask<K extends TaskKind>(
  deps: LifecycleDeps,
  partitionId: string,
  kind: K,
  taskId: string,
): Promise<TaskOfKind<K>> {
  const task = await ownTask(deps.tasks, partitionId, kind, taskId);
  const now = deps.clock();
  // The estimate's history is read beside the refresh (from the cache, most often): no round of its own.
  const [latest, typicalMs] = await Promise.all([refreshed(deps, task), task.status === 'processing' ? typicalMsOf(deps, task, now) : null]);
  const answer = deps.durations ? withTiming(latest, typicalMs, now) : latest;
  return withProgress(narrowTask(answer, kind), deps.clock());
}

/** The task after asking its provider; the stored state when the check failed (still a correct answer). */
async function refreshed(deps: LifecycleDeps, task: Task): Promise<Task> {
  try {
    return await refreshTask(deps, task);
  } catch (error) {
    deps.telemetry.error('refresh failed', error, { task_id: task.taskId });
    return task;
  }
}

/** Ids as we issue them (`vid_`/`img_` + ULID); anything else cannot exist. */
const TASK_ID = /^(vid|img)_[0-9A-HJKMNP-TV-Z]{26}$/;

/** The caller's task of this kind, as stored. Another account's, the other kind's and unknown ids: the same 404. */
export async function ownTask<K extends TaskKind>(
  tasks: Pick<TaskStore, 'get'>,
  partitionId: string,
  kind: K,
  taskId: string,
): Promise<TaskOfKind<K>> {
  return owned(isTaskId(taskId) ? await tasks.get(partitionId, taskId) : undefined, kind, taskId);
}

/** An id as we issue them: anything else cannot exist, and is not looked up. */
export const isTaskId = (taskId: string): boolean => TASK_ID.test(taskId);

/** The task as read, if it is the caller's of this kind; the same 404 otherwise. */
export function owned<K extends TaskKind>(task: Task | undefined, kind: K, taskId: string): TaskOfKind<K> {
  if (!task || !isTaskOfKind(task, kind)) throw notFound(kind, taskId);
  return task;
}

/** The one 404 of a task id: unknown, malformed, another account's or the other kind's alike. */
export const notFound = (kind: TaskKind, taskId: string): NotFoundError => new NotFoundError(`No ${kind} with id "${taskId.slice(0, 64)}".`);
