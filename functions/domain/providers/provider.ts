import type {
  GenerationType,
  ImageAspectRatio,
  ImageModel,
  ImageResolution,
  OutputFormat,
  VideoAspectRatio,
  VideoModel,
  VideoResolution,
} from '../catalogue/catalogue';
import type { GenerationExtras } from '../catalogue/params';

/**
 * The upstream generation provider, behind one small interface. Adapters live in
 * functions/providers/ (one folder each, listed in registry.ts); the use cases only ever see
 * these types.
 */

export interface VideoJob extends GenerationExtras {
  kind: 'video';
  /** Our task id (video_id); adapters may use it to name outputs. */
  taskId: string;
  model: VideoModel;
  generationType: GenerationType;
  prompt: string;
  imageUrl?: string;
  /** The video ends on this image (image_to_video only). */
  endImageUrl?: string;
  aspectRatio: VideoAspectRatio;
  /** Seconds. */
  duration: number;
  resolution: VideoResolution;
}

export interface ImageJob extends GenerationExtras {
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
  /**
   * The provider took the job; poll it with this id. `callbacks`: it will report the job to
   * the callback URL it was given (so polls upstream are only the safety net).
   */
  | {
      type: 'accepted';
      jobId: string;
      callbacks?: boolean;
      /** The jobs ahead of it in the provider's queue, when the provider says (fal does): 0 runs at once. */
      queuePosition?: number;
    }
  /**
   * The job will never run, and another provider would not run it either: a content refusal, or
   * a job that ended at once. The customer's answer, never failed over (any other refusal is a
   * ProviderUnavailableError with reason `refused`).
   */
  | { type: 'rejected'; code: ProviderFailureCode; message: string };

export type ResultOutcome =
  /**
   * Still running; `progress` (0-100) when the provider says how far it is, `queuePosition` when
   * it says how many jobs wait ahead of this one (0: running).
   */
  | { type: 'processing'; progress?: number; queuePosition?: number }
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

export interface SubmitOptions {
  /**
   * Where the provider should report the job's progress and its end: our public callback
   * route for this task (docs/tasks.md, "Provider callbacks"). The task's id travels in it, so
   * a callback names its task even when the create's answer was lost.
   */
  callbackUrl?: string;
}

/** Which task a callback is for: our callback URL names it (docs/tasks.md, "Provider callbacks"). */
export interface CallbackTarget {
  provider: string;
  accountId: string;
  taskId: string;
}

/** A provider's callback as it reached our public route. */
export interface CallbackRequest {
  /** The raw body, exactly as received (the signature covers these bytes). */
  body: string;
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
  /**
   * The URL's query parameters besides our token: what a provider put in the callback URL we
   * gave it (fal's names the app its job runs on). Not covered by the provider's signature.
   */
  query?: Record<string, string | undefined>;
}

/** What a verified callback says about one job. */
export interface ProviderCallback {
  jobId: string;
  outcome: ResultOutcome;
  /**
   * The provider's id for this message (Standard Webhooks' webhook-id, the same on its
   * retries), covered by the signature: a second message with it is a replay.
   */
  messageId?: string;
}

export interface GenerationProvider {
  readonly name: string;
  /**
   * Creates a job. Throws ProviderUnavailableError when nothing was created (its `reason`:
   * unreachable, refused, 429, not sent; safe to try again or elsewhere, after
   * `retryAfterSeconds` for a 429), and SubmissionUnknownError when the request may have created
   * a job whose id we never read. A content refusal is the `rejected` outcome.
   */
  submit(job: GenerationJob, options?: SubmitOptions): Promise<SubmitOutcome>;
  /**
   * Verifies a callback this provider sent (signature, and a timestamp within
   * CALLBACK_TOLERANCE_SECONDS of `now`) and reads it. Throws CallbackRejectedError for a
   * forged, stale or unreadable callback.
   */
  readCallback(request: CallbackRequest, now: Date): Promise<ProviderCallback>;
  /**
   * The token our callback URL for `target` carries, which binds a callback to the task its URL
   * names: derived from this provider's callback secret, so only we (and the provider we gave
   * the URL to) know it. Undefined when the provider has no callback secret (it sends none).
   */
  callbackToken(target: CallbackTarget): Promise<string | undefined>;
  /** The latest state of a job this provider accepted. */
  fetchResult(jobId: string): Promise<ResultOutcome>;
  /** Asks the provider to stop a job (best effort: a job that already ended is left alone). */
  cancel(jobId: string): Promise<void>;
  /** Ends work this process still does in the background (the simulated provider's callbacks), at shutdown. */
  close?(): void;
}

/**
 * Why a provider did not take a call, as far as its health goes (docs/tasks.md, "Routing and
 * failover"): only `failing` counts against its circuit (circuit-breaker.ts); any answer resets it.
 */
export type UnavailableReason =
  /** No answer (a refused or reset connection, a timeout) or a 5xx: the provider may be unwell. */
  | 'failing'
  /** It answered 4xx other than a content refusal (a refused key, an input or a model it does not take). */
  | 'refused'
  /** It answered 429: it wants fewer requests. */
  | 'rate_limited'
  /** It answered 2xx in words we cannot read. */
  | 'unreadable'
  /** Nothing was sent: this provider cannot take the job here (its model map has no entry for it). */
  | 'not_sent';

/**
 * The provider could not be asked, or refused before any job existed: network error, timeout,
 * 5xx, 4xx, 429 or an answer we cannot read. Nothing is known about the job, so callers keep the
 * task's state as it is (a poll answers with the stored state) or treat a submission as failed
 * (the next route, else 502 and a refund).
 */
export class ProviderUnavailableError extends Error {
  readonly reason: UnavailableReason;
  /** Seconds the provider asked us to wait (a 429's Retry-After, or its words), when it said. */
  readonly retryAfterSeconds?: number;

  constructor(message: string, options: { reason?: UnavailableReason; retryAfterSeconds?: number } = {}) {
    super(message);
    this.name = 'ProviderUnavailableError';
    this.reason = options.reason ?? 'failing';
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
  }

  /** The provider refused for load (429): nothing was created; it wants fewer requests. */
  get rateLimited(): boolean {
    return this.reason === 'rate_limited';
  }
}

/**
 * A create whose outcome we do not know: it timed out (`failing`), or the provider answered 2xx
 * in words we cannot read (`unreadable`). A job may exist upstream and bill us, so the task is not
 * refunded at once: the job's callback (which names the task) adopts it, or the sweeper refunds
 * after a bounded wait.
 */
export class SubmissionUnknownError extends ProviderUnavailableError {
  constructor(message: string, reason: 'failing' | 'unreadable' = 'failing') {
    super(message, { reason });
    this.name = 'SubmissionUnknownError';
  }
}

/** Callbacks older or newer than this (by their signed timestamp) are refused as replays. */
export const CALLBACK_TOLERANCE_SECONDS = 5 * 60;

/** A callback we refuse: it changes nothing and is answered 4xx. */
export class CallbackRejectedError extends Error {
  constructor(
    readonly reason: 'signature' | 'stale' | 'malformed',
    message: string,
  ) {
    super(message);
    this.name = 'CallbackRejectedError';
  }
}
