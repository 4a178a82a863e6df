import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { ulid } from 'ulid';
import * as z from 'zod';
import { ReferenceUnavailableError } from '#adapters/reference-images';
import { MEDIA_PREFIXES, SIMULATED_OUTPUT_PREFIX } from '#adapters/s3/media-layout';
import type { ObjectStorage } from '#adapters/s3/object-storage';
import { imageDimensions, videoDimensions } from '#domain/catalogue/dimensions';
import {
  type CallbackRequest,
  CallbackRejectedError,
  type CallbackTarget,
  type GenerationJob,
  type GenerationProvider,
  type ProviderCallback,
  type ResultOutcome,
  ProviderUnavailableError,
  SubmissionUnknownError,
  type SubmitOptions,
  type SubmitOutcome,
} from '#domain/providers/provider';
import { assertCallbackSecret, callbackUrlToken, verifySignedCallback } from '../signed-callback';
import { CallbackSender } from './callback-sender';
import { MediaInputError } from './media/errors';
import { readSample } from './sample-outputs';

/**
 * The renderers need sharp and ffmpeg (native, large): loaded on the first render only. Lambda
 * bundles leave them out altogether (VIDGEN_BUNDLE is defined as "lambda" when they are built,
 * lib/constructs/api-function.ts, so this import is dropped as dead code): there the provider
 * hands out sample outputs instead (SIM_OUTPUTS=samples, set by the stack).
 */
const renderers = (): Promise<typeof import('./media')> =>
  process.env.VIDGEN_BUNDLE === 'lambda'
    ? Promise.reject(new Error('This Lambda bundle has no renderers (sharp, ffmpeg): set SIM_OUTPUTS=samples.'))
    : import('./media');

/**
 * A stand-in for the upstream provider that produces real files: after `delayMs` a job's
 * result is rendered (an H.264 MP4 or a PNG/JPEG/WebP showing the prompt) into the media
 * bucket (with `outputs: 'samples'`, a ready-made file of its aspect ratio and format is copied
 * there instead). Job state lives in the bucket too, so any Lambda instance can answer for any job.
 *
 * Magic words in the prompt drive it: `sim:reject` (refused at submission), `sim:fail`
 * (ends failed, upstream_error), `sim:content` (ends failed, content_rejected),
 * `sim:stall` (never finishes) and `sim:nocallback` (sends no callbacks: a lost callback,
 * which polling recovers). For routing by hand, words that name one provider: `sim:down:<name>`
 * (that provider refuses the create as a 503 would: the start fails over) and `sim:lost:<name>`
 * (the job is created but its answer is lost: no failover, its callback adopts it).
 *
 * Callbacks: with a `callbackSecret`, a job submitted with a callback URL reports itself
 * there, as Replicate's webhooks do, signed with Standard Webhooks: its progress at about a
 * third and two thirds of `delayMs`, then at `delayMs` its end, computed by fetchResult itself
 * (so it renders the result, and a poll and a callback can never disagree). A cancel reports
 * the end at once. The timers live in this process only (the job's state stays in the bucket):
 * they are unref'd, and close() cancels them and aborts deliveries under way; a test calls it
 * when it is done. In a Lambda the timers do not outlive the invocation (the runtime freezes
 * the process), so there the simulated provider's callbacks are not to be relied on: polling
 * and the sweeper carry every task, as they do for any lost callback.
 *
 * The callback body is a small JSON object, Replicate-like:
 *   { "id": "sim_...", "status": "processing", "progress": 33 }
 *   { "id": "sim_...", "status": "succeeded", "output": ["https://.../outputs/sim_....mp4"] }
 *   { "id": "sim_...", "status": "failed", "error": { "code": "upstream_error", "message": "...", "public_message": "..." } }
 */
export interface SimulatedProviderOptions {
  /** Its provider name: 'simulated', or 'simulated-b' (a second one to route to, local stack and tests). */
  name?: string;
  storage: ObjectStorage;
  delayMs: number;
  /**
   * How many jobs run at once (0 or unset: no limit). Further jobs wait their turn, first come
   * first served, and report their place in the queue as fal's do (jobs ahead; 0 once running).
   * The lanes are this process's: exact on the local stack, per instance on Lambda.
   */
  concurrency?: number;
  /**
   * Reads a reference image (image_url, images); throws when it cannot be had, with a
   * ReferenceUnavailableError when the reason is one a client can act on.
   */
  fetchReference: (url: string) => Promise<Buffer>;
  clock?: () => Date;
  /**
   * `rendered` (the default): media showing the prompt, made with sharp and ffmpeg.
   * `samples`: ready-made files of the job's aspect ratio and format (sample-outputs.ts), for
   * where the renderers are not installed (AWS).
   */
  outputs?: 'rendered' | 'samples';
  /** Signs callbacks ("whsec_..."). Unset: callback URLs are ignored and every callback is refused. */
  callbackSecret?: string;
  /** Waits before the retries of a callback POST that failed (default 250 and 1000 ms); then it is dropped. */
  callbackRetryDelaysMs?: readonly number[];
  /** Told when a callback could not be computed or delivered (it is dropped: polling recovers the task). */
  onCallbackError?: (error: unknown) => void;
}

interface SimJob {
  job: GenerationJob;
  submittedAt: string;
  /** When it starts running (after the jobs ahead of it in the lanes); absent: at once. */
  startsAt?: string;
  /** When each earlier job unfinished at its submission ends: those not ended yet are ahead of it. */
  ahead?: string[];
  /** Set by cancel: the job renders nothing and reports itself canceled. */
  canceledAt?: string;
}

const JOB_ID_PATTERN = /^sim_[0-9A-Z]{26}$/;
/** At most this many start instants kept per job: a queue position beyond it reads as this. */
const MAX_AHEAD = 1000;
const JOBS = `${MEDIA_PREFIXES.simulatedProvider}jobs`;
const IMAGE_TYPES = { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp' } as const;

/** Fractions of the delay at which a running job reports its progress, before its end at 1. */
const PROGRESS_POINTS = [1 / 3, 2 / 3] as const;
const CALLBACK_ATTEMPT_TIMEOUT_MS = 5_000;

/** Jobs of this process that still have callbacks to send. */
interface Reporting {
  url: string;
  /** When the job was stored (this process's clock), which the report times count from. */
  startedAt: number;
  /** The next report's timer, while one is waiting. */
  timer?: NodeJS.Timeout;
  /** Reads of the job that failed in a row (its output could not be stored, say). */
  failedReads?: number;
}

export class SimulatedProvider implements GenerationProvider {
  readonly name: string;
  private readonly clock: () => Date;
  private readonly sender: CallbackSender | undefined;
  private readonly reporting = new Map<string, Reporting>();
  private readonly callbackRetryDelaysMs: readonly number[];
  /** With a concurrency: when each lane is next free (ms), and when each job not ended yet ends. */
  private readonly lanes: number[];
  private unfinished: number[] = [];

  constructor(private readonly options: SimulatedProviderOptions) {
    this.name = options.name ?? 'simulated';
    this.clock = options.clock ?? (() => new Date());
    this.callbackRetryDelaysMs = options.callbackRetryDelaysMs ?? [250, 1_000];
    this.lanes = Array.from({ length: options.concurrency ?? 0 }, () => 0);
    if (options.callbackSecret !== undefined) {
      assertCallbackSecret(options.callbackSecret, 'The simulated provider callback secret');
      this.sender = new CallbackSender({
        secret: options.callbackSecret,
        retryDelaysMs: this.callbackRetryDelaysMs,
        attemptTimeoutMs: CALLBACK_ATTEMPT_TIMEOUT_MS,
        clock: this.clock,
      });
    }
  }

  async submit(job: GenerationJob, submitOptions: SubmitOptions = {}): Promise<SubmitOutcome> {
    if (job.prompt.includes('sim:reject')) {
      return { type: 'rejected', code: 'upstream_error', message: 'simulated refusal (sim:reject)' };
    }
    // Routing by hand: `sim:down:<name>` makes that provider refuse before any job exists (a 503).
    if (namedIn(job.prompt, 'sim:down', this.name)) throw new ProviderUnavailableError(`simulated outage of ${this.name} (sim:down)`);
    const jobId = `sim_${ulid()}`;
    const now = this.clock();
    const state: SimJob = { job, submittedAt: now.toISOString(), ...this.schedule(now.getTime()) };
    await this.options.storage.put(`${JOBS}/${jobId}.json`, JSON.stringify(state), 'application/json');
    const { callbackUrl } = submitOptions;
    // sim:nocallback still promises callbacks and sends none: a lost callback, for polls to recover.
    const callbacks = callbackUrl !== undefined && this.sender !== undefined && !this.sender.closed;
    // Its reports count from when it starts running (later than now when it waits its turn).
    const waitMs = state.startsAt === undefined ? 0 : Date.parse(state.startsAt) - now.getTime();
    if (callbacks && !job.prompt.includes('sim:nocallback')) this.startReporting(jobId, callbackUrl, waitMs);
    // `sim:lost:<name>`: the job exists but its answer is lost (a timeout after sending); its callbacks adopt it.
    if (namedIn(job.prompt, 'sim:lost', this.name)) throw new SubmissionUnknownError(`simulated lost answer from ${this.name} (sim:lost)`);
    const place = state.startsAt === undefined ? 0 : waitMs > 0 ? this.placeOf(state.ahead ?? [], now.getTime()) : 0;
    return { type: 'accepted', jobId, ...(callbacks && { callbacks: true }), ...(this.lanes.length > 0 && { queuePosition: place }) };
  }

  /** A job's place in the lanes: it starts when the first lane is free, after the jobs before it. */
  private schedule(now: number): Pick<SimJob, 'startsAt' | 'ahead'> {
    if (this.lanes.length === 0) return {};
    const lane = this.lanes.indexOf(Math.min(...this.lanes));
    const startsAt = Math.max(now, this.lanes[lane]!);
    this.lanes[lane] = startsAt + this.options.delayMs;
    this.unfinished = this.unfinished.filter((end) => end > now);
    const ahead = this.unfinished.slice(-MAX_AHEAD).map((end) => new Date(end).toISOString());
    this.unfinished.push(startsAt + this.options.delayMs);
    return { startsAt: new Date(startsAt).toISOString(), ahead };
  }

  /**
   * A waiting job's queue position: the earlier jobs not ended yet, less the lanes they leave for
   * it (with one lane: every unfinished job before it; at least 1 while it waits).
   */
  private placeOf(ahead: readonly string[], now: number): number {
    const unfinished = ahead.filter((end) => Date.parse(end) > now).length;
    return Math.max(1, unfinished - (this.lanes.length - 1));
  }

  async fetchResult(jobId: string): Promise<ResultOutcome> {
    if (!JOB_ID_PATTERN.test(jobId)) return { type: 'failed', code: 'upstream_error', message: 'unknown job' };
    const text = await this.options.storage.getText(`${JOBS}/${jobId}.json`);
    if (!text) return { type: 'failed', code: 'upstream_error', message: 'unknown job' };
    const { job, submittedAt, startsAt, ahead = [], canceledAt } = JSON.parse(text) as SimJob;

    if (canceledAt) return { type: 'failed', code: 'upstream_error', message: 'the job was canceled' };
    const now = this.clock().getTime();
    // Waiting its turn: how many of the jobs it queued behind have not started yet.
    if (startsAt !== undefined && now < Date.parse(startsAt)) {
      return { type: 'processing', progress: 0, queuePosition: this.placeOf(ahead, now) };
    }
    const elapsed = now - Date.parse(startsAt ?? submittedAt);
    // Its own figure, as a real provider's would be: how much of the delay has passed.
    const progress = Math.min(99, Math.floor((100 * elapsed) / Math.max(1, this.options.delayMs)));
    if (job.prompt.includes('sim:stall')) return { type: 'processing', progress: 0, queuePosition: 0 };
    if (elapsed < this.options.delayMs) return { type: 'processing', progress, queuePosition: 0 };
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
        const field = job.kind === 'image' ? 'one of images' : job.endImageUrl ? 'image_url or end_image_url' : 'image_url';
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

  /** Verifies a callback this provider sent (Standard Webhooks, with the callback secret) and reads it. */
  async readCallback(request: CallbackRequest, now: Date): Promise<ProviderCallback> {
    const signed = verifySignedCallback(this.options.callbackSecret, request, now);
    const parsed = callbackBody.safeParse(signed.body);
    if (!parsed.success) throw new CallbackRejectedError('malformed', 'The callback is not a simulated job report.');
    const body = parsed.data;
    const read = { jobId: body.id, messageId: signed.messageId };
    switch (body.status) {
      case 'processing':
        return {
          ...read,
          outcome: {
            type: 'processing',
            ...(body.progress !== undefined && { progress: body.progress }),
            ...(body.queue_position !== undefined && { queuePosition: body.queue_position }),
          },
        };
      case 'succeeded':
        return { ...read, outcome: { type: 'completed', outputUrls: body.output } };
      case 'failed': {
        const { code, message, public_message: publicMessage } = body.error;
        return { ...read, outcome: { type: 'failed', code, message, ...(publicMessage !== undefined && { publicMessage }) } };
      }
    }
  }

  async callbackToken(target: CallbackTarget): Promise<string | undefined> {
    return this.options.callbackSecret === undefined ? undefined : callbackUrlToken(this.options.callbackSecret, target);
  }

  /** Stops the job: it will render nothing (and reports its end now, if this process reports it). Unknown or ended jobs are left alone. */
  async cancel(jobId: string): Promise<void> {
    if (!JOB_ID_PATTERN.test(jobId)) return;
    const key = `${JOBS}/${jobId}.json`;
    const text = await this.options.storage.getText(key);
    if (!text) return;
    const state = JSON.parse(text) as SimJob;
    await this.options.storage.put(key, JSON.stringify({ ...state, canceledAt: this.clock().toISOString() }), 'application/json');
    const reporting = this.reporting.get(jobId);
    if (reporting) {
      this.sender?.clear(reporting.timer);
      void this.report(jobId, PROGRESS_POINTS.length);
    }
  }

  /** Cancels the callbacks still to come and aborts deliveries under way (see the class comment). */
  close(): void {
    this.sender?.close();
    this.reporting.clear();
  }

  /** Schedules the job's reports: progress at each PROGRESS_POINTS fraction of the delay, then its end. */
  private startReporting(jobId: string, url: string, waitMs: number): void {
    if (!this.sender || this.sender.closed) return;
    this.reporting.set(jobId, { url, startedAt: Date.now() + waitMs });
    this.scheduleReport(jobId, 0);
  }

  /** The report at point `index` (PROGRESS_POINTS, then the end), timed from the submission. */
  private scheduleReport(jobId: string, index: number): void {
    const reporting = this.reporting.get(jobId);
    if (!reporting || !this.sender) return;
    const fraction = PROGRESS_POINTS[index] ?? 1;
    const wait = reporting.startedAt + Math.ceil(fraction * this.options.delayMs) - Date.now();
    reporting.timer = this.sender.later(wait, () => void this.report(jobId, index));
  }

  /**
   * Reads the job as a poll would and sends what it says. The end (or a final answer earlier,
   * such as a cancel) is the last report; after a progress report the next one is scheduled.
   */
  private async report(jobId: string, index: number): Promise<void> {
    const reporting = this.reporting.get(jobId);
    if (!reporting || !this.sender) return;
    reporting.timer = undefined;
    const last = index >= PROGRESS_POINTS.length;
    let outcome: ResultOutcome;
    try {
      outcome = await this.fetchResult(jobId);
    } catch (error) {
      // Its own work failed this time (storing the output met a reset connection): like a real
      // provider it tries again, after the callback retry delays, before dropping the report.
      const failedReads = (reporting.failedReads ?? 0) + 1;
      const retryIn = this.callbackRetryDelaysMs[failedReads - 1];
      if (retryIn !== undefined && !this.sender.closed) {
        reporting.failedReads = failedReads;
        reporting.timer = this.sender.later(retryIn, () => void this.report(jobId, index));
        return;
      }
      this.reporting.delete(jobId);
      this.options.onCallbackError?.(error);
      return;
    }
    reporting.failedReads = 0;
    if (this.reporting.get(jobId) !== reporting) return; // canceled (or closed) while rendering
    if (last || outcome.type !== 'processing') this.reporting.delete(jobId);
    else this.scheduleReport(jobId, index + 1);
    try {
      await this.sender.post(reporting.url, `msg_${ulid()}`, JSON.stringify(callbackBodyOf(jobId, outcome)));
    } catch (error) {
      this.options.onCallbackError?.(error);
    }
  }

  /** Renders the result once; a concurrent second render writes the same object again. */
  private async render(jobId: string, job: GenerationJob, references: Buffer[]): Promise<string> {
    const { storage } = this.options;
    if (this.options.outputs === 'samples') {
      const key = job.kind === 'video' ? `${SIMULATED_OUTPUT_PREFIX}${jobId}.mp4` : `${SIMULATED_OUTPUT_PREFIX}${jobId}.${job.outputFormat}`;
      if (await storage.exists(key)) return storage.publicUrl(key);
      return storage.put(key, await readSample(job), job.kind === 'video' ? 'video/mp4' : IMAGE_TYPES[job.outputFormat]);
    }
    if (job.kind === 'video') {
      const key = `${SIMULATED_OUTPUT_PREFIX}${jobId}.mp4`;
      if (await storage.exists(key)) return storage.publicUrl(key);
      const { width, height } = videoDimensions(job.resolution, job.aspectRatio);
      // referenceFields' order: image_url, then end_image_url.
      const [firstFrame, lastFrame] = references;
      const { renderVideo } = await renderers();
      const file = await renderVideo({
        prompt: job.prompt,
        durationSeconds: job.duration,
        width,
        height,
        ...(firstFrame && { firstFrame }),
        ...(lastFrame && { lastFrame }),
        ...extrasOf(job),
      });
      try {
        return await storage.putStream(key, createReadStream(file.path), file.bytes, 'video/mp4');
      } finally {
        await rm(file.path, { force: true });
      }
    }
    const key = `${SIMULATED_OUTPUT_PREFIX}${jobId}.${job.outputFormat}`;
    if (await storage.exists(key)) return storage.publicUrl(key);
    const { width, height } = imageDimensions(job.resolution, job.aspectRatio);
    const { renderImage } = await renderers();
    const image = await renderImage({
      prompt: job.prompt,
      width,
      height,
      format: job.outputFormat,
      ...(references.length > 0 && { references }),
      ...extrasOf(job),
    });
    return storage.put(key, image, IMAGE_TYPES[job.outputFormat]);
  }
}

const callbackBody = z.discriminatedUnion('status', [
  z.object({
    id: z.string().regex(JOB_ID_PATTERN),
    status: z.literal('processing'),
    progress: z.number().min(0).max(100).optional(),
    queue_position: z.number().int().min(0).optional(),
  }),
  z.object({
    id: z.string().regex(JOB_ID_PATTERN),
    status: z.literal('succeeded'),
    output: z.array(z.url({ protocol: /^https?$/ })).min(1),
  }),
  z.object({
    id: z.string().regex(JOB_ID_PATTERN),
    status: z.literal('failed'),
    error: z.object({
      code: z.enum(['upstream_error', 'content_rejected']),
      message: z.string(),
      public_message: z.string().optional(),
    }),
  }),
]);

type CallbackBody = z.infer<typeof callbackBody>;

function callbackBodyOf(id: string, outcome: ResultOutcome): CallbackBody {
  switch (outcome.type) {
    case 'processing':
      return {
        id,
        status: 'processing',
        ...(outcome.progress !== undefined && { progress: outcome.progress }),
        ...(outcome.queuePosition !== undefined && { queue_position: outcome.queuePosition }),
      };
    case 'completed':
      return { id, status: 'succeeded', output: outcome.outputUrls };
    case 'failed':
      return {
        id,
        status: 'failed',
        error: {
          code: outcome.code,
          message: outcome.message,
          ...(outcome.publicMessage !== undefined && { public_message: outcome.publicMessage }),
        },
      };
  }
}

/** The job's reference images with the request field each came from (a video's first frame, then its last). */
function referenceFields(job: GenerationJob): { field: string; url: string }[] {
  if (job.kind === 'video') {
    return [
      ...(job.imageUrl ? [{ field: 'image_url', url: job.imageUrl }] : []),
      ...(job.endImageUrl ? [{ field: 'end_image_url', url: job.endImageUrl }] : []),
    ];
  }
  return (job.images ?? []).map((url, index) => ({ field: `images.${index}`, url }));
}

/** Does the prompt hold `<word>:<name>` for exactly this provider name (`sim:down:simulated` is not `simulated-b`'s)? */
function namedIn(prompt: string, word: string, name: string): boolean {
  return [...prompt.matchAll(new RegExp(`${word}:([A-Za-z0-9-]+)`, 'g'))].some((match) => match[1] === name);
}

/** The seed (all the renderers' randomness) and the negative prompt (drawn on the card), when given. */
function extrasOf(job: GenerationJob): { seed?: number; negativePrompt?: string } {
  return {
    ...(job.seed !== undefined && { seed: job.seed }),
    ...(job.negativePrompt !== undefined && { negativePrompt: job.negativePrompt }),
  };
}
