import { circuitStatus, type CircuitRecord, type CircuitStatus, type CircuitStore } from '../providers/circuit-breaker';
import { NotFoundError } from '../shared/errors';
import type { TaskStore } from '../ports';
import type { Task } from './task';

/**
 * What operators ask about providers (the admin CLI's `task show` and `circuits`): which provider
 * runs a task, how its submission stands, and each provider's circuit as the table holds it.
 */

export interface CircuitView extends CircuitRecord {
  provider: string;
  status: CircuitStatus;
}

/** The circuits of `providers` as they stand at `now` (a provider never failed: closed, no failures). */
export async function circuitsOf(store: CircuitStore, providers: readonly string[], now: number): Promise<CircuitView[]> {
  return Promise.all(providers.map((provider) => circuitOf(store, provider, now)));
}

async function circuitOf(store: CircuitStore, provider: string, now: number): Promise<CircuitView> {
  const record = await store.read(provider);
  return { provider, status: circuitStatus(record, now), ...record };
}

/** Where a task's create stands, in words (docs/tasks.md, "Submission"). */
export type SubmissionState = 'job recorded' | 'queued' | 'not sent yet' | 'sent, answer not known' | 'none';

export function submissionState(task: Task): SubmissionState {
  if (task.provider) return 'job recorded';
  if (task.status !== 'processing') return 'none';
  if (task.queuedAt) return 'queued';
  // A create went out and its answer was lost: its callback adopts the job, or the sweeper refunds after the grace.
  return task.unsent ? 'not sent yet' : 'sent, answer not known';
}

/** One task of a scope (an account's live id, or its test scope), with its provider's circuit when it has one. */
export async function describeTask(
  stores: { tasks: Pick<TaskStore, 'get'>; circuits: CircuitStore },
  scopeId: string,
  taskId: string,
  now: number,
): Promise<{ task: Task; circuit?: CircuitView }> {
  const task = await stores.tasks.get(scopeId, taskId);
  if (!task) throw new NotFoundError(`No task ${taskId} for account ${scopeId}.`);
  if (!task.provider) return { task };
  return { task, circuit: await circuitOf(stores.circuits, task.provider.name, now) };
}
