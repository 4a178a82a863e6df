import { NotFoundError } from './errors';
import { withProgress } from './progress';
import { narrowTask, type TaskKind, type TaskOfKind } from './task';
import { refreshTask, type LifecycleDeps } from './task-lifecycle';

/**
 * A task of the caller's, refreshed from the provider while processing. Another account's
 * task, a task of the other kind and an unknown id are the same 404.
 */
export async function getTask<K extends TaskKind>(
  deps: LifecycleDeps,
  accountId: string,
  kind: K,
  taskId: string,
): Promise<TaskOfKind<K>> {
  const notFound = () => new NotFoundError(`No ${kind} with id "${taskId.slice(0, 64)}".`);
  if (!TASK_ID.test(taskId)) throw notFound();
  const task = await deps.tasks.get(accountId, taskId);
  if (!task || task.kind !== kind) throw notFound();
  try {
    return withProgress(narrowTask(await refreshTask(deps, task), kind), deps.clock());
  } catch (error) {
    // The stored state is still a correct answer: a failed check answers with it.
    deps.telemetry.error('refresh failed', error, { task_id: taskId });
    return withProgress(narrowTask(task, kind), deps.clock());
  }
}

/** Ids as we issue them (`vid_`/`img_` + ULID); anything else cannot exist. */
const TASK_ID = /^(vid|img)_[0-9A-HJKMNP-TV-Z]{26}$/;
