import type {
  GenerationType,
  ImageAspectRatio,
  ImageModel,
  ImageResolution,
  OutputFormat,
  VideoAspectRatio,
  VideoModel,
  VideoResolution,
} from './catalogue';

/**
 * The upstream generation provider, behind one small interface. Adapters live in
 * functions/providers/ (simulated, replicate); the use cases only ever see these types.
 */

export interface VideoJob {
  kind: 'video';
  /** Our task id (video_id); adapters may use it to name outputs. */
  taskId: string;
  model: VideoModel;
  generationType: GenerationType;
  prompt: string;
  imageUrl?: string;
  aspectRatio: VideoAspectRatio;
  /** Seconds. */
  duration: number;
  resolution: VideoResolution;
}

export interface ImageJob {
  kind: 'image';
  taskId: string;
  model: ImageModel;
  prompt: string;
  resolution: ImageResolution;
  aspectRatio: ImageAspectRatio;
  outputFormat: OutputFormat;
  /** Reference images (edit mode). */
  images?: string[];
}

export type GenerationJob = VideoJob | ImageJob;

/** Why a job ended badly, in the public task error codes. */
export type ProviderFailureCode = 'upstream_error' | 'content_rejected';

export type SubmitOutcome =
  /** The provider took the job; poll it with this id. */
  | { type: 'accepted'; jobId: string }
  /** The provider refused the job outright (bad input, policy): it will never run. */
  | { type: 'rejected'; code: ProviderFailureCode; message: string };

export type ResultOutcome =
  /** Still running; `progress` (0-100) when the provider says how far it is. */
  | { type: 'processing'; progress?: number }
  /** Finished; the output URLs are the provider's and may expire, so they are copied before use. */
  | { type: 'completed'; outputUrls: string[] }
  | {
      type: 'failed';
      code: ProviderFailureCode;
      /** For the logs only (may name the vendor or leak internals). */
      message: string;
      /**
       * When the request itself is at fault (a reference image that cannot be fetched): what the
       * client reads in error.message, in words it can act on. Otherwise our sentence for `code`.
       */
      publicMessage?: string;
    };

export interface GenerationProvider {
  readonly name: string;
  submit(job: GenerationJob): Promise<SubmitOutcome>;
  /** The latest state of a job this provider accepted. */
  fetchResult(jobId: string): Promise<ResultOutcome>;
  /** Asks the provider to stop a job (best effort: a job that already ended is left alone). */
  cancel(jobId: string): Promise<void>;
}

/**
 * The provider could not be asked: network error, timeout, 5xx, 429 or an answer we cannot
 * read. Nothing is known about the job, so callers keep the task's state as it is (a poll
 * answers with the stored state) or treat a submission as failed (502, refund).
 */
export class ProviderUnavailableError extends Error {
  constructor(
    message: string,
    /** Seconds the provider asked us to wait (429 Retry-After), when it said. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'ProviderUnavailableError';
  }
}
