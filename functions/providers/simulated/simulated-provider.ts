import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { ulid } from 'ulid';
import { ReferenceUnavailableError } from '../../adapters/reference-images';
import { MEDIA_PREFIXES } from '../../adapters/s3/media-layout';
import type { ObjectStorage } from '../../adapters/s3/object-storage';
import { imageDimensions, videoDimensions } from '../../domain/dimensions';
import type { GenerationJob, GenerationProvider, ResultOutcome, SubmitOutcome } from '../../domain/provider';
import { MediaInputError } from './media/errors';

/**
 * The renderers need sharp and ffmpeg (native, large): loaded on the first render only, so a
 * function that never renders (every one on AWS, where the provider is Replicate) never
 * loads them.
 */
const renderers = () => import('./media');

/**
 * A stand-in for the upstream provider that produces real files: after `delayMs` a job's
 * result is rendered (an H.264 MP4 or a PNG/JPEG/WebP showing the prompt) into the media
 * bucket. Job state lives in the bucket too, so any Lambda instance can answer for any job.
 *
 * Magic words in the prompt drive it: `sim:reject` (refused at submission), `sim:fail`
 * (ends failed, upstream_error), `sim:content` (ends failed, content_rejected) and
 * `sim:stall` (never finishes).
 */
export interface SimulatedProviderOptions {
  storage: ObjectStorage;
  delayMs: number;
  /**
   * Reads a reference image (image_url, images); throws when it cannot be had, with a
   * ReferenceUnavailableError when the reason is one a client can act on.
   */
  fetchReference: (url: string) => Promise<Buffer>;
  clock?: () => Date;
}

interface SimJob {
  job: GenerationJob;
  submittedAt: string;
  /** Set by cancel: the job renders nothing and reports itself canceled. */
  canceledAt?: string;
}

const JOBS = `${MEDIA_PREFIXES.simulatedProvider}jobs`;
const OUTPUTS = `${MEDIA_PREFIXES.simulatedProvider}outputs`;
const IMAGE_TYPES = { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp' } as const;

export class SimulatedProvider implements GenerationProvider {
  readonly name = 'simulated';
  private readonly clock: () => Date;

  constructor(private readonly options: SimulatedProviderOptions) {
    this.clock = options.clock ?? (() => new Date());
  }

  async submit(job: GenerationJob): Promise<SubmitOutcome> {
    if (job.prompt.includes('sim:reject')) {
      return { type: 'rejected', code: 'upstream_error', message: 'simulated refusal (sim:reject)' };
    }
    const jobId = `sim_${ulid()}`;
    const state: SimJob = { job, submittedAt: this.clock().toISOString() };
    await this.options.storage.put(`${JOBS}/${jobId}.json`, JSON.stringify(state), 'application/json');
    return { type: 'accepted', jobId };
  }

  async fetchResult(jobId: string): Promise<ResultOutcome> {
    if (!/^sim_[0-9A-Z]{26}$/.test(jobId)) return { type: 'failed', code: 'upstream_error', message: 'unknown job' };
    const text = await this.options.storage.getText(`${JOBS}/${jobId}.json`);
    if (!text) return { type: 'failed', code: 'upstream_error', message: 'unknown job' };
    const { job, submittedAt, canceledAt } = JSON.parse(text) as SimJob;

    if (canceledAt) return { type: 'failed', code: 'upstream_error', message: 'the job was canceled' };
    const elapsed = this.clock().getTime() - Date.parse(submittedAt);
    // Its own figure, as a real provider's would be: how much of the delay has passed.
    const progress = Math.min(99, Math.floor((100 * elapsed) / Math.max(1, this.options.delayMs)));
    if (job.prompt.includes('sim:stall')) return { type: 'processing', progress: 0 };
    if (elapsed < this.options.delayMs) return { type: 'processing', progress };
    if (job.prompt.includes('sim:fail')) {
      return { type: 'failed', code: 'upstream_error', message: 'simulated generation failure (sim:fail)' };
    }
    if (job.prompt.includes('sim:content')) {
      return { type: 'failed', code: 'content_rejected', message: 'simulated content policy refusal (sim:content)' };
    }
    const fields = referenceFields(job);
    const read = await Promise.allSettled(fields.map(({ url }) => this.options.fetchReference(url)));
    const unreadable = read.findIndex((result) => result.status === 'rejected');
    if (unreadable !== -1) {
      const error = (read[unreadable] as PromiseRejectedResult).reason as Error;
      const why = error instanceof ReferenceUnavailableError ? error.reason : 'it could not be read';
      return {
        type: 'failed',
        code: 'upstream_error',
        message: `A reference image could not be read: ${error.message}`,
        publicMessage: `${fields[unreadable]!.field} could not be fetched: ${why}.`,
      };
    }
    const references = read.map((result) => (result as PromiseFulfilledResult<Buffer>).value);
    try {
      return { type: 'completed', outputUrls: [await this.render(jobId, job, references)] };
    } catch (error) {
      // A reference that passed the upload's header check but does not decode.
      if (error instanceof MediaInputError) {
        const field = job.kind === 'video' ? 'image_url' : 'one of images';
        return {
          type: 'failed',
          code: 'upstream_error',
          message: `A reference image could not be decoded: ${error.message}`,
          publicMessage: `${field} could not be decoded as an image (JPEG, PNG or WebP).`,
        };
      }
      throw error;
    }
  }

  /** Stops the job: it will render nothing. Unknown or ended jobs are left alone. */
  async cancel(jobId: string): Promise<void> {
    if (!/^sim_[0-9A-Z]{26}$/.test(jobId)) return;
    const key = `${JOBS}/${jobId}.json`;
    const text = await this.options.storage.getText(key);
    if (!text) return;
    const state = JSON.parse(text) as SimJob;
    await this.options.storage.put(key, JSON.stringify({ ...state, canceledAt: this.clock().toISOString() }), 'application/json');
  }

  /** Renders the result once; a concurrent second render writes the same object again. */
  private async render(jobId: string, job: GenerationJob, references: Buffer[]): Promise<string> {
    const { storage } = this.options;
    if (job.kind === 'video') {
      const key = `${OUTPUTS}/${jobId}.mp4`;
      if (await storage.exists(key)) return storage.publicUrl(key);
      const { width, height } = videoDimensions(job.resolution, job.aspectRatio);
      const firstFrame = references[0];
      const { renderVideo } = await renderers();
      const file = await renderVideo({
        prompt: job.prompt,
        durationSeconds: job.duration,
        width,
        height,
        ...(firstFrame && { firstFrame }),
      });
      try {
        return await storage.putStream(key, createReadStream(file.path), file.bytes, 'video/mp4');
      } finally {
        await rm(file.path, { force: true });
      }
    }
    const key = `${OUTPUTS}/${jobId}.${job.outputFormat}`;
    if (await storage.exists(key)) return storage.publicUrl(key);
    const { width, height } = imageDimensions(job.resolution, job.aspectRatio);
    const { renderImage } = await renderers();
    const image = await renderImage({
      prompt: job.prompt,
      width,
      height,
      format: job.outputFormat,
      ...(references.length > 0 && { references }),
    });
    return storage.put(key, image, IMAGE_TYPES[job.outputFormat]);
  }
}

/** The job's reference images with the request field each came from. */
function referenceFields(job: GenerationJob): { field: string; url: string }[] {
  if (job.kind === 'video') return job.imageUrl ? [{ field: 'image_url', url: job.imageUrl }] : [];
  return (job.images ?? []).map((url, index) => ({ field: `images.${index}`, url }));
}
