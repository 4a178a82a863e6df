import type { ThumbnailStorage } from '#adapters/ffmpeg-thumbnails';
import type { CopyQueue, Thumbnails } from '#domain/tasks/ports';
import { composeLifecycle, type LifecycleParts, type TaskDeps } from './compose';

/**
 * The copy worker's wiring (copy-output on AWS; locally, what the in-process copy queue calls):
 * the lifecycle's ports plus ffmpeg's thumbnails, which no other function makes. A copy
 * completes or fails its task itself and never asks for another copy, so the worker's copy
 * queue refuses: nothing here closes over the lifecycle being built.
 */
const NO_COPIES: CopyQueue = {
  enqueue: async () => {
    throw new Error('The copy worker asks for no copies: a copy completes or fails its task itself.');
  },
};

export function buildCopyWorker(parts: Omit<LifecycleParts, 'copies'>, storage: ThumbnailStorage, ffmpegPath: string | undefined): TaskDeps {
  return composeLifecycle({ ...parts, thumbnails: ffmpegThumbnails(storage, ffmpegPath), copies: NO_COPIES });
}

/**
 * First frames with ffmpeg, its module loaded on the first thumbnail: a function that follows
 * tasks may copy in process (the local stack, `npm run invoke`) but on AWS never does.
 */
function ffmpegThumbnails(storage: ThumbnailStorage, ffmpegPath: string | undefined): Thumbnails {
  let thumbnails: Promise<Thumbnails> | undefined;
  return {
    async firstFrame(videoKey, key) {
      thumbnails ??= import('#adapters/ffmpeg-thumbnails').then(({ FfmpegThumbnails, ffmpegBinary }) => new FfmpegThumbnails(storage, ffmpegBinary(ffmpegPath)));
      return (await thumbnails).firstFrame(videoKey, key);
    },
  };
}
