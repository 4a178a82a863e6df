import type { Page } from '../shared/page';
import type { TaskStore } from './ports';
import { withProgress } from './progress';
import { timedAll, type TimingDeps } from './task-timing';
import { narrowTask, type TaskKind, type TaskOfKind } from './task';

/** A page of an account's history of one kind (or of one end user's part of it), newest first. Past the end: an empty page. */
export async function listTasks<K extends TaskKind>(
  deps: TimingDeps & { tasks: TaskStore },
  partitionId: string,
  kind: K,
  page: number,
  limit: number,
  now: Date,
  endUser?: string,
): Promise<Page<TaskOfKind<K>>> {
  const result = endUser === undefined ? await deps.tasks.listPage(partitionId, kind, page, limit) : await deps.tasks.listEndUserPage(partitionId, endUser, kind, page, limit);
  const totalPages = Math.ceil(result.total / limit);
  return {
    items: (await timedAll(deps, result.tasks, now)).map((task) => withProgress(narrowTask(task, kind), now)),
    page,
    limit,
    total: result.total,
    totalPages,
    hasMore: page < totalPages,
  };
}
