import { providerFor } from '../providers/choice';
import type { GenerationProvider } from '../providers/provider';
import type { Telemetry } from '../shared/telemetry';
import type { TaskDurations } from './ports';
import type { Task } from './task';
import { withTiming } from './timing';

/**
 * What timing a task reads: the durations (absent: no estimates) and, where they are at hand,
 * the providers a task without a job yet would go to (a list page has none: such a task's
 * estimate there is null until its job is accepted).
 */
export interface TimingDeps {
  durations?: TaskDurations;
  /** Where an unavailable estimate is told (it is null either way). */
  telemetry?: Telemetry;
  provider?: GenerationProvider;
  testProvider?: GenerationProvider;
}

/**
 * A processing task's timing as read now (timing.ts), from its provider's recent durations for
 * its model. Final tasks come back as they are; an estimate that cannot be had is null, never
 * an error.
 */
export async function timed<T extends Task>(deps: TimingDeps, task: T, now: Date): Promise<T> {
  // Without durations (a store-less test world), views show both fields null.
  if (task.status !== 'processing' || !deps.durations) return task;
  return withTiming(task, await typicalMsOf(deps, task, now), now);
}

/** The tasks of a page, timed: one read per provider and model, most often from the cache. */
export function timedAll<T extends Task>(deps: TimingDeps, tasks: readonly T[], now: Date): Promise<T[]> {
  return Promise.all(tasks.map((task) => timed(deps, task, now)));
}

export async function typicalMsOf(deps: TimingDeps, task: Task, now: Date): Promise<number | null> {
  const { durations, provider: configured } = deps;
  if (!durations) return null;
  try {
    // Never throws into its caller: the start runs this beside its settle, after the charge.
    const provider = task.provider?.name ?? (configured && providerFor({ ...deps, provider: configured }, task).name);
    return provider ? await durations.typicalMs(provider, task.params.model, now) : null;
  } catch (error) {
    deps.telemetry?.warn('task durations unavailable; no estimate', { task_id: task.taskId, error: String(error) });
    return null;
  }
}
