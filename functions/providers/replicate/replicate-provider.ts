import {
  type GenerationJob,
  type GenerationProvider,
  type ProviderFailureCode,
  ProviderUnavailableError,
  type ResultOutcome,
  type SubmitOutcome,
} from '../../domain/provider';
import { buildInput, findMapping, ModelMapError, type ReplicateModelMap } from './model-map';

/**
 * The Replicate predictions API (https://replicate.com/docs/reference/http) behind our
 * GenerationProvider interface.
 *
 * - submit creates a prediction and never retries: a create is not idempotent, so a retry
 *   could start (and bill) two jobs. Anything we cannot read as a clear answer throws
 *   ProviderUnavailableError; 400/422 is Replicate refusing the input, a rejected outcome.
 * - fetchResult reads a prediction. A poll that cannot be read throws, so it never changes a
 *   task; a 5xx or a dropped connection is tried once more within the same time budget.
 * - Messages never contain the API token, even if Replicate echoes it back.
 */

export interface ReplicateProviderOptions {
  /** https://api.replicate.com in production; the fake's URL in tests. */
  baseUrl: string;
  apiToken: string;
  /** Budget for one submit or one fetchResult, retries included. */
  timeoutMs: number;
  models: ReplicateModelMap;
}

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
  }

  async submit(job: GenerationJob): Promise<SubmitOutcome> {
    const mapping = findMapping(this.options.models, job.model);
    if (!mapping) {
      throw new ProviderUnavailableError(`No Replicate model is configured for model "${job.model}".`);
    }
    let input;
    try {
      input = buildInput(mapping, job);
    } catch (error) {
      if (error instanceof ModelMapError) throw new ProviderUnavailableError(error.message);
      throw error;
    }
    const [path, body] = mapping.model
      ? [`/v1/models/${mapping.model}/predictions`, { input }]
      : ['/v1/predictions', { version: mapping.version, input }];

    const deadline = Date.now() + this.options.timeoutMs;
    const answer = await this.send('POST', path, body, deadline);

    if (answer.status === 400 || answer.status === 422) {
      const detail = upstreamDetail(answer.text) ?? `Replicate refused the input (HTTP ${answer.status}).`;
      return { type: 'rejected', code: classify(detail), message: this.redact(detail) };
    }
    if (answer.status < 200 || answer.status > 299) throw this.unavailable(answer, 'creating a prediction');

    const prediction = parsePrediction(answer.text);
    if (typeof prediction?.id !== 'string' || prediction.id === '') {
      throw new ProviderUnavailableError(
        `Replicate answered HTTP ${answer.status} to a create without a readable prediction id.`,
      );
    }
    if (prediction.status === 'failed' || prediction.status === 'canceled') {
      return { type: 'rejected', ...this.failure(prediction) };
    }
    // Any other status, even one we do not know, means the prediction exists: fetchResult
    // will tell what became of it.
    return { type: 'accepted', jobId: prediction.id };
  }

  async fetchResult(jobId: string): Promise<ResultOutcome> {
    const path = `/v1/predictions/${encodeURIComponent(jobId)}`;
    const answer = await this.getWithOneRetry(path, Date.now() + this.options.timeoutMs);
    if (answer.status < 200 || answer.status > 299) throw this.unavailable(answer, `reading prediction ${jobId}`);

    const prediction = parsePrediction(answer.text);
    if (!prediction) throw new ProviderUnavailableError(`Replicate's answer for prediction ${jobId} is not JSON.`);
    const status = prediction.status;
    if (typeof status !== 'string' || !STATUSES.includes(status)) {
      throw new ProviderUnavailableError(
        this.redact(
          `Replicate reported an unknown status ${truncate(String(JSON.stringify(status)))} for prediction ${jobId}.`,
        ),
      );
    }
    switch (status as PredictionStatus) {
      case 'starting':
      case 'processing':
        return { type: 'processing' };
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
      if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
        throw new ProviderUnavailableError(
          `Replicate did not answer ${method} ${path} within ${this.options.timeoutMs} ms.`,
        );
      }
      throw new ConnectionError(`Could not reach Replicate for ${method} ${path} (${networkReason(error)}).`);
    }
  }

  private unavailable(answer: HttpAnswer, doing: string): ProviderUnavailableError {
    const { status } = answer;
    if (status === 429) {
      return new ProviderUnavailableError(
        `Replicate is rate limiting us while ${doing} (HTTP 429).`,
        retryAfterSeconds(answer.headers.get('retry-after')),
      );
    }
    const reason =
      status === 401 || status === 403
        ? 'the API token was refused'
        : status === 404
          ? 'not found (check the model map, or the prediction id)'
          : status >= 500
            ? 'Replicate had a server error'
            : 'unexpected answer';
    return new ProviderUnavailableError(`Replicate answered HTTP ${status} while ${doing}: ${reason}.`);
  }

  private redact(message: string): string {
    return this.options.apiToken === '' ? message : message.split(this.options.apiToken).join('[redacted]');
  }
}

/** Network failure before any answer: the one case besides 5xx worth a second GET. */
class ConnectionError extends ProviderUnavailableError {}

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

/** Retry-After is whole seconds or an HTTP date. */
function retryAfterSeconds(header: string | null): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}
