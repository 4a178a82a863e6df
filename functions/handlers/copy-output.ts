import { copyWorker } from '#app-context/lifecycle';
import type { CopyRequest } from '#domain/tasks/ports';
import { copyRequested } from '#domain/tasks/lifecycle/outputs';
import { observe } from '#observability/middleware';

/** Copies a finished task's provider outputs into our bucket (invoked asynchronously). */
export const handler = observe(
  async (event: CopyRequest): Promise<void> => {
    await copyRequested(copyWorker(), event);
  },
  { requestKeys: (event) => ({ task_id: event.taskId, account_id: event.accountId }) },
);
