import type { ImageJob, VideoJob } from '#domain/providers/provider';

/** A text-to-video job for provider adapter tests; spread it and override what a test needs. */
export const VIDEO_JOB: VideoJob = {
  kind: 'video',
  taskId: 'vid_01J0000000000000000000000',
  model: 'vid-1-5-pro',
  generationType: 'text_to_video',
  prompt: 'A red fox running through fresh snow',
  aspectRatio: '16:9',
  duration: 5,
  resolution: '720p',
};

/** An image job (no references) for provider adapter tests. */
export const IMAGE_JOB: ImageJob = {
  kind: 'image',
  taskId: 'img_01J0000000000000000000000',
  model: 'image-2',
  prompt: 'A lighthouse at dusk',
  resolution: '1k',
  aspectRatio: '1:1',
  outputFormat: 'png',
};
