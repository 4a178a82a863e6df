import { IMAGE_MODELS, VIDEO_MODELS } from '../catalogue/catalogue';
import type { Task } from './task';

/** While processing, the estimate stops here: only the end of the task shows 100. */
export const MAX_PROCESSING_PROGRESS = 95;

/** How long a task of this model usually takes upstream. */
function typicalMs(task: Task): number {
  const seconds = task.kind === 'video' ? VIDEO_MODELS[task.params.model].typicalSeconds : IMAGE_MODELS[task.params.model].typicalSeconds;
  return seconds * 1000;
}

/**
 * How far a task is, 0-100, never going down: 100 once completed; a failed task keeps the value
 * it had; while processing, the larger of the provider's last figure and an estimate from the
 * time elapsed against the model's typical duration, held at 95 or below.
 */
export function progressOf(task: Task, now: Date): number {
  if (task.status === 'completed') return 100;
  if (task.status === 'failed') return task.progress;
  const elapsed = Math.max(0, now.getTime() - Date.parse(task.createdAt));
  // An estimate that approaches 95 but slows down, so a slow task still moves.
  const estimate = Math.floor(MAX_PROCESSING_PROGRESS * (1 - Math.exp(-elapsed / typicalMs(task))));
  return Math.min(MAX_PROCESSING_PROGRESS, Math.max(task.progress, estimate));
}

/** The task as a caller sees it now: its progress brought up to date. */
export const withProgress = <T extends Task>(task: T, now: Date): T => ({ ...task, progress: progressOf(task, now) });
