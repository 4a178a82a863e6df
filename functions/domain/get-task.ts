import { NotFoundError } from './errors';
import type { Task, TaskKind } from './task';
import { refreshTask, type LifecycleDeps } from './task-lifecycle';

/**
 * A task of the caller's, refreshed from the provider while processing. Another account's
 * task, a task of the other kind and an unknown id are the same 404.
 */
export async function getTask(deps: LifecycleDeps, accountId: string, kind: TaskKind, taskId: string): Promise<Task> {
  const task = taskId ? await deps.tasks.get(accountId, taskId) : undefined;
  if (!task || task.kind !== kind) throw new NotFoundError(`No ${kind} with id "${taskId}".`);
  return refreshTask(deps, task);
}
