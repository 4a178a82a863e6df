import { appContext, copyRequested } from '../app-context';
import type { CopyRequest } from '../adapters/copy-queues';
import { observe } from '../observability/middleware';

/** Copies a finished task's provider outputs into our bucket (invoked asynchronously). */
export const handler = observe(
  async (event: CopyRequest): Promise<void> => {
    await copyRequested(appContext().lifecycle, event);
  },
  { requestKeys: (event) => ({ task_id: event.taskId, account_id: event.accountId }) },
);
