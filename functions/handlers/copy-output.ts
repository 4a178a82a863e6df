import { lifecycle } from '../app-context/lifecycle';
import type { CopyRequest } from '../domain/ports';
import { copyRequested } from '../domain/task-lifecycle';

/** Copies a finished task's provider outputs into our bucket (invoked asynchronously). */
export async function handler(event: CopyRequest): Promise<void> {
  await copyRequested(lifecycle(), event);
}
