import { NotFoundError } from '../shared/errors';
import { withProgress } from './progress';
import type { TaskStore } from './ports';
import { isTaskOfKind, narrowTask, type Task, type TaskKind, type TaskOfKind } from './task';
import { timed } from './task-timing';
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
  let latest: Task = task;
  try {
    latest = await refreshTask(deps, task);
  } catch (error) {
    // The stored state is still a correct answer: a failed check answers with it.
    deps.telemetry.error('refresh failed', error, { task_id: taskId });
  }
  return withProgress(narrowTask(await timed(deps, latest, deps.clock()), kind), deps.clock());
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
  const notFound = () => new NotFoundError(`No ${kind} with id "${taskId.slice(0, 64)}".`);
  const task = TASK_ID.test(taskId) ? await tasks.get(partitionId, taskId) : undefined;
  if (!task || !isTaskOfKind(task, kind)) throw notFound();
  return task;
}
