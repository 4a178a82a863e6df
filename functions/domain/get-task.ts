import { NotFoundError } from './errors';
import type { Task, TaskKind } from './task';
import { refreshTask, type LifecycleDeps } from './task-lifecycle';

/**
 * A task of the caller's, refreshed from the provider while processing. Another account's
 * task, a task of the other kind and an unknown id are the same 404.
 */
export async function getTask(deps: LifecycleDeps, accountId: string, kind: TaskKind, taskId: string): Promise<Task> {
  const notFound = () => new NotFoundError(`No ${kind} with id "${taskId.slice(0, 64)}".`);
  if (!TASK_ID.test(taskId)) throw notFound();
  const task = await deps.tasks.get(accountId, taskId);
  if (!task || task.kind !== kind) throw notFound();
  try {
    return await refreshTask(deps, task);
  } catch (error) {
    // The stored state is still a correct answer (CONTRACT.md: a failed check answers with it).
    deps.telemetry.error('refresh failed', error, { task_id: taskId });
    return task;
  }
}

/** Ids as we issue them (`vid_`/`img_` + ULID); anything else cannot exist. */
const TASK_ID = /^(vid|img)_[0-9A-HJKMNP-TV-Z]{26}$/;
