import { OutputRefusedError } from '../../catalogue/media-type';
import type { GenerationJob } from '../../providers/provider';
import type { CopyRequest } from '../ports';
import type { Task } from '../task';
import { move } from '../transitions';
import type { LifecycleDeps } from './deps';
import { announceEnded, logProviderDetail, failTask, FAILURE_MESSAGES } from './endings';

const EXTENSIONS: Record<string, { ext: string; contentType: string }> = {
  video: { ext: 'mp4', contentType: 'video/mp4' },
  png: { ext: 'png', contentType: 'image/png' },
  jpg: { ext: 'jpg', contentType: 'image/jpeg' },
  webp: { ext: 'webp', contentType: 'image/webp' },
};

/** Where a video's first frame goes: next to the video, under the same rules. */
const thumbnailKey = (task: Task) => `videos/${task.taskId}.jpg`;

/**
 * A video's poster, made from our copy. Any failure (an undecodable video, ffmpeg missing or
 * slow) leaves the video without one: a thumbnail never fails the task.
 */
async function makeThumbnail(deps: LifecycleDeps, task: Task): Promise<string | undefined> {
  if (task.kind !== 'video' || !deps.thumbnails) return undefined;
  try {
    return await deps.thumbnails.firstFrame(outputFile(task, 0).key, thumbnailKey(task));
  } catch (error) {
    deps.telemetry.warn('thumbnail not made; the video completes without one', { task_id: task.taskId, error: String(error) });
    deps.telemetry.count('ThumbnailFailed', { model: task.params.model });
    return undefined;
  }
}

/** Every object a task's outputs occupy in our storage: each output, and a video's thumbnail. */
export function storedKeys(task: Task): string[] {
  const outputs = (task.outputUrls ?? task.pendingOutputs ?? []).map((_, index) => outputFile(task, index).key);
  // A video's own key even when no URL lists it (a DeleteObject of a missing key is a success).
  return [...new Set([...outputs, ...(task.kind === 'video' ? [outputFile(task, 0).key, thumbnailKey(task)] : [])])];
}

/** Where a task's (first) output and a video's thumbnail are in our storage: what a delivery sends. */
export const outputKeyOf = (task: Task): string => outputFile(task, 0).key;
export const thumbnailKeyOf = (task: Task): string => thumbnailKey(task);

function outputFile(task: Task, index: number) {
  const format = task.kind === 'video' ? EXTENSIONS.video! : EXTENSIONS[task.params.outputFormat]!;
  const folder = task.kind === 'video' ? 'videos' : 'images';
  const suffix = task.kind === 'video' ? '' : `-${index + 1}`;
  return { key: `${folder}/${task.taskId}${suffix}.${format.ext}`, contentType: format.contentType };
}

/**
 * Copies a task's pending provider outputs into our bucket, then completes it. A failed copy
 * is counted and retried later (copy worker, sweeper); after `maxCopyAttempts` the task fails
 * and is refunded. A copy asked for while another holds the task's claim leaves it to that one.
 */
export async function copyOutputs(deps: LifecycleDeps, task: Task): Promise<Task> {
  if (task.phase !== 'storing' || !task.pendingOutputs) return task;
  // One copy at a time: a second one would write the same keys while the first reads them back
  // for the thumbnail (s3rver's overwrite removes the object first; on S3 it is wasted work).
  const now = deps.clock();
  const copyClaimedBefore = new Date(now.getTime() - deps.settings.copyLeaseMs).toISOString();
  if (!(await move(deps.tasks, task, 'copyClaim', { set: { copyClaimedAt: now.toISOString() }, guard: { copyClaimedBefore } }))) {
    return (await deps.tasks.get(task.partitionId, task.taskId)) ?? task;
  }
  try {
    const urls: string[] = [];
    for (const [index, sourceUrl] of task.pendingOutputs.entries()) {
      const { key, contentType } = outputFile(task, index);
      urls.push(await deps.media.copyFromUrl(sourceUrl, key, contentType, task.kind));
    }
    const thumbnailUrl = await makeThumbnail(deps, task);
    const completedAt = deps.clock().toISOString();
    const outputs = { outputUrls: urls, completedAt, ...(thumbnailUrl && { thumbnailUrl }) };
    // A destination: completed all the same (charged, `*.completed` sent), then delivered after.
    const completed = task.destination
      ? await move(deps.tasks, task, 'completeForDelivery', {
          at: completedAt,
          set: { ...outputs, delivery: { status: 'pending', attempts: 0, nextAttemptAt: completedAt } },
          remove: ['pendingOutputs', 'copyClaimedAt'],
        })
      : await move(deps.tasks, task, 'complete', { at: completedAt, set: outputs, remove: ['pendingOutputs', 'copyClaimedAt'] });
    if (completed) {
      if (completed.phase === 'delivering') await requestDelivery(deps, completed);
      const model = task.params.model;
      const outputs = urls.length;
      deps.telemetry.info('task completed', { task_id: task.taskId, account_id: task.partitionId, model, outputs });
      deps.telemetry.count('TaskCompleted', { model });
      const [announced] = await Promise.all([announceEnded(deps, completed), recordDuration(deps, completed)]);
      return announced;
    }
    if ((await deps.tasks.get(task.partitionId, task.taskId))?.status !== 'completed') {
      // The task ended otherwise meanwhile (timed out): its result must not stay published. A
      // concurrent copy that completed it first wrote these very keys: they stay.
      await Promise.all(task.pendingOutputs.map((_, index) => deps.media.remove(outputFile(task, index).key)));
      if (thumbnailUrl) await deps.media.remove(thumbnailKey(task));
    }
  } catch (error) {
    if (error instanceof OutputRefusedError) {
      // Not the provider's file, or not what the task makes: no retry can change that.
      logProviderDetail(deps, task, error.message);
      await Promise.all(task.pendingOutputs.map((_, index) => deps.media.remove(outputFile(task, index).key)));
      return failTask(deps, task, { code: 'upstream_error', message: FAILURE_MESSAGES.upstream_error });
    }
    // The claim goes with the failure: the next ask (the sweeper's) copies at once.
    const attempts = (await move(deps.tasks, task, 'copyFailed', { countCopyFailure: true, remove: ['copyClaimedAt'] }))?.copyAttempts;
    deps.telemetry.warn('copy of provider output failed', { task_id: task.taskId, attempts, error: String(error) });
    if (attempts !== undefined && attempts >= deps.settings.maxCopyAttempts) {
      return failTask(deps, task, { code: 'upstream_error', message: FAILURE_MESSAGES.upstream_error });
    }
  }
  return (await deps.tasks.get(task.partitionId, task.taskId)) ?? task;
}

/**
 * Queues the first delivery attempt. A lost message leaves the task `delivering` with nothing
 * to move it: logged as an error (the sweeper's `delivering` row, design-35 §2, is its backstop).
 */
async function requestDelivery(deps: LifecycleDeps, task: Task): Promise<void> {
  try {
    if (!deps.deliveries) throw new Error('no delivery queue is configured');
    await deps.deliveries.send({ accountId: task.partitionId, taskId: task.taskId });
  } catch (error) {
    deps.telemetry.error('delivery not queued', error, { task_id: task.taskId });
  }
}

/** The copy worker's job: copy one task's waiting outputs (a task gone or final is left alone). */
export async function copyRequested(deps: LifecycleDeps, request: CopyRequest): Promise<void> {
  const task = await deps.tasks.get(request.accountId, request.taskId);
  if (task) await copyOutputs(deps, task);
}

/** The job to send upstream for a task. */
export function jobFor(task: Task): GenerationJob {
  return task.kind === 'video'
    ? { kind: 'video', taskId: task.taskId, ...task.params }
    : { kind: 'image', taskId: task.taskId, ...task.params };
}

/** A completed task's duration joins its provider's sample for its model (the estimates' history, timing.ts). */
async function recordDuration(deps: Pick<LifecycleDeps, 'durations' | 'telemetry'>, task: Task): Promise<void> {
  if (!deps.durations || !task.provider || !task.completedAt) return;
  try {
    await deps.durations.record(task.provider.name, task.params.model, { taskId: task.taskId, createdAt: task.createdAt, completedAt: task.completedAt });
  } catch (error) {
    // A sample less: the estimates go on from the others.
    deps.telemetry.warn('task duration not recorded', { task_id: task.taskId, error: String(error) });
  }
}
