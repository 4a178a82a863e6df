import {
  type CallbackRequest,
  CallbackRejectedError,
  type CallbackTarget,
  type GenerationJob,
  type GenerationProvider,
  type ProviderCallback,
  type ProviderFailureCode,
  ProviderUnavailableError,
  type ResultOutcome,
  SubmissionUnknownError,
  type SubmitOptions,
  type SubmitOutcome,
} from '#domain/providers/provider';
import { assertCallbackSecret, callbackUrlToken, verifySignedCallback } from '../signed-callback';
import { buildInput, findMapping, ModelMapError, type ReplicateModelMap } from './model-map';

/**
 * The Replicate predictions API (https://replicate.com/docs/reference/http) behind our
 * GenerationProvider interface.
 *
 * - submit creates a prediction and never retries: a create is not idempotent, so a retry
 *   could start (and bill) two jobs. A timeout, or a 2xx without a readable prediction id,
 *   may have created one: SubmissionUnknownError. Nothing was created, ProviderUnavailableError,
 *   on a 5xx or a connection refused or reset (`failing`), a 429 (`rate_limited`, with or
 *   without Retry-After: Replicate documents its throttling by the body alone), any other 4xx
 *   (`refused`: a refused token, a model map entry it does not have, an input it does not take),
 *   or a model missing from our map (`not_sent`). Only a content refusal (400/422 in the safety
 *   checker's words) is the rejected outcome: another provider would refuse it too.
 * - With a webhook signing secret, a submit with a callback URL asks Replicate to POST the
 *   prediction there when it starts and when it ends; readCallback verifies those (Standard
 *   Webhooks) and reads them exactly as fetchResult reads a poll. Without a secret nothing is
 *   requested (a callback we cannot verify is worthless) and every callback is refused.
 * - fetchResult reads a prediction. A poll that cannot be read throws, so it never changes a
 *   task; a 5xx or a dropped connection is tried once more within the same time budget.
 * - Messages never contain the API token or the webhook secret, even if Replicate echoes them.
 */

export interface ReplicateProviderOptions {
  /** https://api.replicate.com in production; the fake's URL in tests. */
  baseUrl: string;
  apiToken: string;
  /** Budget for one submit or one fetchResult, retries included. */
  timeoutMs: number;
  models: ReplicateModelMap;
  /**
   * The account's webhook signing secret ("whsec_...", from GET /v1/webhooks/default/secret).
   * Unset: no callbacks are requested and readCallback refuses every one.
   */
  webhookSecret?: string;
}

/** The webhook events we want: the start (progress) and the end (completed, failed or canceled). */
export const WEBHOOK_EVENTS = ['start', 'completed'] as const;

type PredictionStatus = 'starting' | 'processing' | 'succeeded' | 'failed' | 'canceled';
const STATUSES: readonly string[] = ['starting', 'processing', 'succeeded', 'failed', 'canceled'];

interface Prediction {
  id?: string;
  status?: string;
  output?: unknown;
  error?: unknown;
}

interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
}

/** Words Replicate models use when their safety checker refuses a prompt or an output. */
const CONTENT_REJECTED_PATTERN = /nsfw|safety|flagged|sensitive/i;
const MAX_UPSTREAM_MESSAGE = 500;

export class ReplicateProvider implements GenerationProvider {
  readonly name = 'replicate';
  private readonly baseUrl: string;

  constructor(private readonly options: ReplicateProviderOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    if (options.webhookSecret !== undefined) assertCallbackSecret(options.webhookSecret, 'The Replicate webhook secret');
  }

  async submit(job: GenerationJob, submitOptions: SubmitOptions = {}): Promise<SubmitOutcome> {
    const mapping = findMapping(this.options.models, job.model);
    if (!mapping) {
      throw new ProviderUnavailableError(`No Replicate model is configured for model "${job.model}".`, { reason: 'not_sent' });
    }
    let input;
    try {
      input = buildInput(mapping, job);
    } catch (error) {
      if (error instanceof ModelMapError) throw new ProviderUnavailableError(error.message, { reason: 'not_sent' });
      throw error;
    }
    const { callbackUrl } = submitOptions;
    const webhook =
      callbackUrl !== undefined && this.options.webhookSecret !== undefined
        ? { webhook: callbackUrl, webhook_events_filter: [...WEBHOOK_EVENTS] }
        : {};
    const [path, body] = mapping.model
      ? [`/v1/models/${mapping.model}/predictions`, { input, ...webhook }]
      : ['/v1/predictions', { version: mapping.version, input, ...webhook }];

    let answer: HttpAnswer;
    try {
      answer = await this.send('POST', path, body, Date.now() + this.options.timeoutMs);
    } catch (error) {
      // The request may have arrived and started a job whose answer we never read.
      if (error instanceof RequestTimeout) throw new SubmissionUnknownError(error.message);
      throw error;
    }

    if (answer.status === 400 || answer.status === 422) {
      const detail = upstreamDetail(answer.text) ?? `Replicate refused the input (HTTP ${answer.status}).`;
      // A content refusal is the customer's answer; any other is our request's fault (no job): it may fail over.
      if (classify(detail) === 'content_rejected') return { type: 'rejected', code: 'content_rejected', message: this.redact(detail) };
      throw new ProviderUnavailableError(this.redact(`Replicate answered HTTP ${answer.status} to a create: ${detail}`), { reason: 'refused' });
    }
    if (answer.status < 200 || answer.status > 299) throw this.unavailable(answer, 'creating a prediction');

    const prediction = parsePrediction(answer.text);
    if (typeof prediction?.id !== 'string' || prediction.id === '') {
      throw new SubmissionUnknownError(
        `Replicate answered HTTP ${answer.status} to a create without a readable prediction id.`,
        'unreadable',
      );
    }
    if (prediction.status === 'failed' || prediction.status === 'canceled') {
      return { type: 'rejected', ...this.failure(prediction) };
    }
    // Any other status, even one we do not know, means the prediction exists: fetchResult
    // will tell what became of it.
    return { type: 'accepted', jobId: prediction.id, ...('webhook' in webhook && { callbacks: true }) };
  }

  async fetchResult(jobId: string): Promise<ResultOutcome> {
    const path = `/v1/predictions/${encodeURIComponent(jobId)}`;
    const answer = await this.getWithOneRetry(path, Date.now() + this.options.timeoutMs);
    if (answer.status < 200 || answer.status > 299) throw this.unavailable(answer, `reading prediction ${jobId}`);

    const prediction = parsePrediction(answer.text);
    if (!prediction) throw new ProviderUnavailableError(`Replicate's answer for prediction ${jobId} is not JSON.`, { reason: 'unreadable' });
    const outcome = this.outcomeOf(prediction);
    if (!outcome) {
      throw new ProviderUnavailableError(
        this.redact(
          `Replicate reported an unknown status ${truncate(String(JSON.stringify(prediction.status)))} for prediction ${jobId}.`,
        ),
        { reason: 'unreadable' },
      );
    }
    return outcome;
  }

  /**
   * A webhook Replicate sent for one of our predictions: the prediction as it stood, read as
   * a poll of it would be.
   */
  async readCallback(request: CallbackRequest, now: Date): Promise<ProviderCallback> {
    const { messageId, body } = verifySignedCallback(this.options.webhookSecret, request, now);
    const prediction = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Prediction) : undefined;
    if (typeof prediction?.id !== 'string' || prediction.id === '') {
      throw new CallbackRejectedError('malformed', 'The callback is not a prediction with an id.');
    }
    const outcome = this.outcomeOf(prediction);
    if (!outcome) {
      throw new CallbackRejectedError(
        'malformed',
        this.redact(`The callback reports an unknown status ${truncate(String(JSON.stringify(prediction.status)))}.`),
      );
    }
    return { jobId: prediction.id, outcome, messageId };
  }

  async callbackToken(target: CallbackTarget): Promise<string | undefined> {
    return this.options.webhookSecret === undefined ? undefined : callbackUrlToken(this.options.webhookSecret, target);
  }

  async cancel(jobId: string): Promise<void> {
    const path = `/v1/predictions/${encodeURIComponent(jobId)}/cancel`;
    const answer = await this.send('POST', path, {}, Date.now() + this.options.timeoutMs);
    // A prediction that already ended answers 4xx: there is nothing left to stop.
    if (answer.status >= 500 || answer.status === 429) throw this.unavailable(answer, `canceling prediction ${jobId}`);
  }

  /** A GET, tried once more after a 5xx or a dropped connection if the budget allows. */
  private async getWithOneRetry(path: string, deadline: number): Promise<HttpAnswer> {
    try {
      const answer = await this.send('GET', path, undefined, deadline);
      if (answer.status < 500 || Date.now() >= deadline) return answer;
    } catch (error) {
      // A timeout has used the whole budget; other errors are not worth repeating.
      if (!(error instanceof ConnectionError) || Date.now() >= deadline) throw error;
    }
    return this.send('GET', path, undefined, deadline);
  }

  /** What a prediction says about its job, from a poll or a callback; undefined for a status we do not know. */
  private outcomeOf(prediction: Prediction): ResultOutcome | undefined {
    const status = prediction.status;
    if (typeof status !== 'string' || !STATUSES.includes(status)) return undefined;
    switch (status as PredictionStatus) {
      // `starting`: waiting for a machine (no place given); `processing`: running.
      case 'starting':
        return { type: 'processing' };
      case 'processing':
        return { type: 'processing', queuePosition: 0 };
      case 'succeeded': {
        const outputUrls = outputUrlsOf(prediction.output);
        return outputUrls.length > 0
          ? { type: 'completed', outputUrls }
          : { type: 'failed', code: 'upstream_error', message: 'Replicate succeeded without an output URL.' };
      }
      case 'failed':
      case 'canceled':
        return { type: 'failed', ...this.failure(prediction) };
    }
  }

  private failure(prediction: Prediction): { code: ProviderFailureCode; message: string } {
    if (prediction.status === 'canceled') {
      return { code: 'upstream_error', message: 'The prediction was canceled on Replicate.' };
    }
    const error =
      typeof prediction.error === 'string' && prediction.error.trim() !== ''
        ? truncate(prediction.error.trim())
        : 'Replicate reported the prediction as failed.';
    return { code: classify(error), message: this.redact(error) };
  }

  /** One HTTP exchange, body included, bounded by the deadline. Throws on timeout or network error. */
  private async send(method: 'GET' | 'POST', path: string, body: unknown, deadline: number): Promise<HttpAnswer> {
    const remaining = Math.max(1, deadline - Date.now());
    try {
      const response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${this.options.apiToken}`,
          Accept: 'application/json',
          ...(body !== undefined && { 'Content-Type': 'application/json' }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(remaining),
      });
      return { status: response.status, headers: response.headers, text: await response.text() };
    } catch (error) {
      // By name: fetch's DOMException is not always an instance of this realm's Error (jest).
      const name = typeof error === 'object' && error !== null ? (error as { name?: unknown }).name : undefined;
      if (name === 'TimeoutError' || name === 'AbortError') {
        throw new RequestTimeout(
          `Replicate did not answer ${method} ${path} within ${this.options.timeoutMs} ms.`,
        );
      }
      throw new ConnectionError(`Could not reach Replicate for ${method} ${path} (${networkReason(error)}).`);
    }
  }

  private unavailable(answer: HttpAnswer, doing: string): ProviderUnavailableError {
    const { status } = answer;
    if (status === 429) {
      // Replicate documents its 429 by the body ("Request was throttled. Expected available in 1
      // second."): a Retry-After header is used when there is one, else the body's words.
      const wait = retryAfterSeconds(answer.headers.get('retry-after')) ?? throttledFor(upstreamDetail(answer.text));
      return new ProviderUnavailableError(`Replicate is rate limiting us while ${doing} (HTTP 429).`, {
        reason: 'rate_limited',
        ...(wait !== undefined && { retryAfterSeconds: wait }),
      });
    }
    const words =
      status === 401 || status === 403
        ? 'the API token was refused'
        : status === 404
          ? 'not found (check the model map, or the prediction id)'
          : status >= 500
            ? 'Replicate had a server error'
            : 'unexpected answer';
    // A 5xx says it is unwell; any other answer says it is up (the circuit counts only the former).
    return new ProviderUnavailableError(`Replicate answered HTTP ${status} while ${doing}: ${words}.`, {
      reason: status >= 500 ? 'failing' : 'refused',
    });
  }

  private redact(message: string): string {
    let redacted = message;
    for (const secret of [this.options.apiToken, this.options.webhookSecret]) {
      if (secret) redacted = redacted.split(secret).join('[redacted]');
    }
    return redacted;
  }
}

/** Network failure before any answer: the one case besides 5xx worth a second GET. */
class ConnectionError extends ProviderUnavailableError {}

/** No whole answer within the budget: the request may have taken effect. */
class RequestTimeout extends ProviderUnavailableError {}

function networkReason(error: unknown): string {
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  return typeof cause?.code === 'string' ? cause.code : 'network error';
}

function parsePrediction(text: string): Prediction | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Prediction) : undefined;
  } catch {
    return undefined;
  }
}

/** Replicate's error bodies carry `detail` (and `title`); a failed prediction carries `error`. */
function upstreamDetail(text: string): string | undefined {
  const body = parsePrediction(text) as { detail?: unknown; title?: unknown; error?: unknown } | undefined;
  const detail = [body?.detail, body?.error, body?.title].find(
    (value): value is string => typeof value === 'string' && value.trim() !== '',
  );
  return detail === undefined ? undefined : truncate(detail.trim());
}

function classify(message: string): ProviderFailureCode {
  return CONTENT_REJECTED_PATTERN.test(message) ? 'content_rejected' : 'upstream_error';
}

function truncate(message: string): string {
  return message.length > MAX_UPSTREAM_MESSAGE ? `${message.slice(0, MAX_UPSTREAM_MESSAGE)}...` : message;
}

function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** A URL string or an array of them; anything else gives no URL. */
function outputUrlsOf(output: unknown): string[] {
  const candidates = Array.isArray(output) ? output : [output];
  return candidates.filter(isHttpUrl);
}

/**
 * The wait a throttled answer names in its words, in whole seconds: "Expected available in 1
 * second." or "Your rate limit resets in ~30s." (https://replicate.com/docs/topics/predictions/rate-limits).
 */
function throttledFor(detail: string | undefined): number | undefined {
  const match = detail && /(?:available in|resets in)\s*~?\s*(\d+(?:\.\d+)?)\s*s/i.exec(detail);
  return match ? Math.ceil(Number(match[1])) : undefined;
}

/** Retry-After is whole seconds or an HTTP date. */
function retryAfterSeconds(header: string | null): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}
