import { appContext, copyRequested } from '../app-context';
import type { CopyRequest } from '../adapters/copy-queues';

/** Copies a finished task's provider outputs into our bucket (invoked asynchronously). */
export async function handler(event: CopyRequest): Promise<void> {
  await copyRequested(appContext().lifecycle, event);
}
