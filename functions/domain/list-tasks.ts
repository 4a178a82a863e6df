import type { TaskStore } from './ports';
import type { Task, TaskKind } from './task';

export interface Pagination {
  page: number;
  limit: number;
  total: number;
  total_pages: number;
  has_more: boolean;
}

/** A page of an account's history, newest first (CONTRACT.md). Past the end: an empty page. */
export async function listTasks(
  tasks: TaskStore,
  accountId: string,
  kind: TaskKind,
  page: number,
  limit: number,
): Promise<{ tasks: Task[]; pagination: Pagination }> {
  const result = await tasks.listPage(accountId, kind, page, limit);
  const totalPages = Math.ceil(result.total / limit);
  return {
    tasks: result.tasks,
    pagination: { page, limit, total: result.total, total_pages: totalPages, has_more: page < totalPages },
  };
}
