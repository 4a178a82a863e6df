import type { ImageTask, Task, VideoTask } from './task';

/** The public shapes of tasks (CONTRACT.md): snake_case, final-only fields only when final. */

function common(task: Task) {
  return {
    status: task.status,
    credits_used: task.creditsUsed,
    ...(task.status === 'failed' && task.error && { error: { message: task.error.message, code: task.error.code } }),
    created_at: task.createdAt,
    updated_at: task.updatedAt,
    ...(task.completedAt && { completed_at: task.completedAt }),
  };
}

export function videoView(task: VideoTask) {
  const { params } = task;
  const { status, credits_used, error, created_at, updated_at, completed_at } = common(task);
  return {
    video_id: task.taskId,
    status,
    model: params.model,
    generation_type: params.generationType,
    prompt: params.prompt,
    ...(params.generationType === 'image_to_video' && { image_url: params.imageUrl }),
    aspect_ratio: params.aspectRatio,
    duration: params.duration,
    resolution: params.resolution,
    credits_used,
    ...(status === 'completed' && { video_url: task.outputUrls?.[0] }),
    ...(error && { error }),
    created_at,
    updated_at,
    ...(completed_at && { completed_at }),
  };
}

export function imageView(task: ImageTask) {
  const { params } = task;
  const { status, credits_used, error, created_at, updated_at, completed_at } = common(task);
  return {
    image_id: task.taskId,
    status,
    model: params.model,
    prompt: params.prompt,
    resolution: params.resolution,
    aspect_ratio: params.aspectRatio,
    output_format: params.outputFormat,
    ...(params.images && { images: params.images }),
    credits_used,
    ...(status === 'completed' && { image_urls: task.outputUrls ?? [] }),
    ...(error && { error }),
    created_at,
    updated_at,
    ...(completed_at && { completed_at }),
  };
}

export function taskView(task: Task) {
  return task.kind === 'video' ? videoView(task) : imageView(task);
}
