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
import { buildInput, ModelMapError } from '../replicate/model-map';
import { callbackUrlToken } from '../signed-callback';
import type { FalModelMap, FalModelMapping } from './model-map';
import type { FalWebhookVerifier } from './webhook-signature';

/**
 * fal.ai's queue API (https://docs.fal.ai/model-apis/model-endpoints/queue) behind our
 * GenerationProvider interface.
 *
 * - submit POSTs the job's input to `{baseUrl}/{endpoint}` with `fal_webhook` set to our
 *   callback URL (which also names the job's app, `fal_app`, since fal's webhook body does not).
 *   Never retried by us: a create is not idempotent. A timeout or a 2xx without a request_id
 *   may have created a job: SubmissionUnknownError (no failover). Nothing was created,
 *   ProviderUnavailableError (the start may fail over), on a 5xx or a refused connection
 *   (`failing`), a 429 (`rate_limited`; Retry-After is read when fal sends one, which its docs do
 *   not promise), a 4xx other than a content refusal (`refused`), or a model missing from our map
 *   (`not_sent`). A content refusal: rejected, content_rejected.
 * - A job's id is `{app}/requests/{request_id}`: the path of its status, result and cancel.
 * - fetchResult reads the status (IN_QUEUE with queue_position, IN_PROGRESS, COMPLETED), then
 *   the result of a completed request: its media URLs (video.url, images[].url, image.url).
 * - readCallback verifies fal's ED25519 signature against its JWKS (webhook-signature.ts) and
 *   reads the body ({ request_id, status: OK | ERROR, payload, error }) as a poll's result.
 * - Messages never contain the API key, even if fal echoes it.
 */
export interface FalProviderOptions {
  /** https://queue.fal.run in production; the fake's URL in tests. */
  baseUrl: string;
  apiKey: string;
  /** Budget for one HTTP call. */
  timeoutMs: number;
  models: FalModelMap;
  verifier: FalWebhookVerifier;
}

/** Words fal's models use when a safety checker refuses a prompt or an output. */
const CONTENT_REJECTED_PATTERN = /nsfw|safety|content[ _-]?policy|flagged|sensitive/i;
const MAX_UPSTREAM_MESSAGE = 500;
const REQUEST_ID_PATTERN = /^[A-Za-z0-9-]{1,100}$/;
const APP_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** The query parameter of our callback URL naming the job's app. */
export const APP_PARAMETER = 'fal_app';

interface HttpAnswer {
  status: number;
  text: string;
  /** The Retry-After header, when there is one. */
  retryAfter?: string;
}

export class FalProvider implements GenerationProvider {
  readonly name = 'fal';
  private readonly baseUrl: string;
  private readonly apps: ReadonlySet<string>;

  constructor(private readonly options: FalProviderOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.apps = new Set(Object.values(options.models).map((mapping) => mapping!.app));
  }

  async submit(job: GenerationJob, submitOptions: SubmitOptions = {}): Promise<SubmitOutcome> {
    const mapping: FalModelMapping | undefined = Object.hasOwn(this.options.models, job.model) ? this.options.models[job.model] : undefined;
    if (!mapping) throw new ProviderUnavailableError(`No fal endpoint is configured for model "${job.model}".`, { reason: 'not_sent' });
    let input;
    try {
      input = buildInput(mapping, job);
    } catch (error) {
      if (error instanceof ModelMapError) throw new ProviderUnavailableError(error.message, { reason: 'not_sent' });
      throw error;
    }
    const { callbackUrl } = submitOptions;
    const webhook = callbackUrl === undefined ? '' : `?fal_webhook=${encodeURIComponent(withApp(callbackUrl, mapping.app))}`;
    let answer: HttpAnswer;
    try {
      answer = await this.send('POST', `/${mapping.endpoint}${webhook}`, input);
    } catch (error) {
      // The request may have arrived and queued a job whose id we never read.
      if (error instanceof RequestTimeout) throw new SubmissionUnknownError(error.message);
      throw error;
    }
    if (answer.status >= 400 && answer.status < 500 && answer.status !== 429) {
      const detail = upstreamDetail(answer.text) ?? `fal refused the request (HTTP ${answer.status}).`;
      // A content refusal is the customer's answer; any other 4xx is ours or fal's (no job): it may fail over.
      if (CONTENT_REJECTED_PATTERN.test(detail)) return { type: 'rejected', code: 'content_rejected', message: this.redact(detail) };
      throw new ProviderUnavailableError(this.redact(`fal answered HTTP ${answer.status} to a create: ${detail}`), { reason: 'refused' });
    }
    if (answer.status < 200 || answer.status > 299) throw this.unavailable(answer, 'submitting a request');
    const submitted = parseObject(answer.text) as { request_id?: unknown; queue_position?: unknown } | undefined;
    const requestId = submitted?.request_id;
    if (typeof requestId !== 'string' || !REQUEST_ID_PATTERN.test(requestId)) {
      throw new SubmissionUnknownError(`fal answered HTTP ${answer.status} to a create without a readable request_id.`, 'unreadable');
    }
    return {
      type: 'accepted',
      jobId: jobIdOf(mapping.app, requestId),
      ...(callbackUrl !== undefined && { callbacks: true }),
      // Its place at once, as fal's queue answers a submit with it.
      ...queuePositionOf(submitted?.queue_position),
    };
  }

  async fetchResult(jobId: string): Promise<ResultOutcome> {
    const path = this.jobPath(jobId);
    const status = await this.send('GET', `${path}/status`);
    if (status.status < 200 || status.status > 299) throw this.unavailable(status, `reading the status of ${jobId}`);
    const body = parseObject(status.text) as { status?: unknown; queue_position?: unknown; error?: unknown } | undefined;
    switch (body?.status) {
      case 'IN_QUEUE':
        // fal counts the requests ahead of this one (https://docs.fal.ai/model-apis/model-endpoints/queue).
        return { type: 'processing', progress: 0, ...queuePositionOf(body.queue_position) };
      case 'IN_PROGRESS':
        // Running: fal gives no figure; our estimate (domain/progress.ts) takes it from here.
        return { type: 'processing', progress: 5, queuePosition: 0 };
      case 'COMPLETED':
        if (typeof body.error === 'string' && body.error !== '') return { type: 'failed', ...this.failure(body.error) };
        return this.result(path, jobId);
      default:
        throw new ProviderUnavailableError(this.redact(`fal reported an unknown status ${truncate(String(JSON.stringify(body?.status)))} for ${jobId}.`), { reason: 'unreadable' });
    }
  }

  async readCallback(request: CallbackRequest, now: Date): Promise<ProviderCallback> {
    const signedRequestId = await this.options.verifier.verify(request, now);
    const body = parseObject(request.body) as { request_id?: unknown; status?: unknown; payload?: unknown; error?: unknown; payload_error?: unknown } | undefined;
    if (!body || body.request_id !== signedRequestId || !REQUEST_ID_PATTERN.test(signedRequestId)) {
      throw new CallbackRejectedError('malformed', 'The callback is not a fal webhook for the request its headers name.');
    }
    const app = request.query?.[APP_PARAMETER];
    // Not signed by fal: accepted only as one of the apps our model map sends jobs to.
    if (app === undefined || !this.apps.has(app)) throw new CallbackRejectedError('malformed', 'The callback URL does not name one of our fal apps.');
    const jobId = jobIdOf(app, signedRequestId);
    let outcome: ResultOutcome;
    if (body.status === 'OK') {
      const outputUrls = outputUrlsOf(body.payload);
      outcome = outputUrls.length > 0 ? { type: 'completed', outputUrls } : { type: 'failed', code: 'upstream_error', message: `fal completed without a media URL${typeof body.payload_error === 'string' ? `: ${truncate(body.payload_error)}` : ''}.` };
    } else if (body.status === 'ERROR') {
      outcome = { type: 'failed', ...this.failure(describeError(body.error, body.payload)) };
    } else {
      throw new CallbackRejectedError('malformed', 'The callback reports a status fal does not send.');
    }
    // fal retries an unanswered webhook with the same request: its id is the message's.
    return { jobId, outcome, messageId: `fal:${signedRequestId}` };
  }

  async callbackToken(target: CallbackTarget): Promise<string | undefined> {
    return callbackUrlToken(this.options.apiKey, target);
  }

  async cancel(jobId: string): Promise<void> {
    const answer = await this.send('PUT', `${this.jobPath(jobId)}/cancel`);
    // 400 ALREADY_COMPLETED, 404: nothing left to stop.
    if (answer.status >= 500 || answer.status === 429) throw this.unavailable(answer, `canceling ${jobId}`);
  }

  private async result(path: string, jobId: string): Promise<ResultOutcome> {
    const answer = await this.send('GET', path);
    if (answer.status >= 400 && answer.status < 500 && answer.status !== 429) {
      // The request ran and failed (a model error, a refused output).
      return { type: 'failed', ...this.failure(upstreamDetail(answer.text) ?? `fal answered HTTP ${answer.status} for the result.`) };
    }
    if (answer.status < 200 || answer.status > 299) throw this.unavailable(answer, `reading the result of ${jobId}`);
    const outputUrls = outputUrlsOf(parseObject(answer.text));
    return outputUrls.length > 0 ? { type: 'completed', outputUrls } : { type: 'failed', code: 'upstream_error', message: 'fal completed without a media URL.' };
  }

  /** A job id we made (`app/requests/id`), checked before it goes into a URL path. */
  private jobPath(jobId: string): string {
    const match = /^([^/]+\/[^/]+)\/requests\/([^/]+)$/.exec(jobId);
    if (!match || !APP_PATTERN.test(match[1]!) || !REQUEST_ID_PATTERN.test(match[2]!)) {
      throw new ProviderUnavailableError(`"${truncate(jobId)}" is not a fal job id.`);
    }
    return `/${jobId}`;
  }

  private failure(message: string): { code: ProviderFailureCode; message: string } {
    return { code: CONTENT_REJECTED_PATTERN.test(message) ? 'content_rejected' : 'upstream_error', message: this.redact(truncate(message)) };
  }

  /** One HTTP exchange, body included, bounded by the timeout. */
  private async send(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<HttpAnswer> {
    try {
      const response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          Authorization: `Key ${this.options.apiKey}`,
          Accept: 'application/json',
          ...(body !== undefined && { 'Content-Type': 'application/json' }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      const retryAfter = response.headers.get('retry-after');
      return { status: response.status, text: await response.text(), ...(retryAfter !== null && { retryAfter }) };
    } catch (error) {
      // By name: fetch's DOMException is not always an instance of this realm's Error (jest).
      const name = typeof error === 'object' && error !== null ? (error as { name?: unknown }).name : undefined;
      const where = `${method} ${path.split('?')[0]}`;
      if (name === 'TimeoutError' || name === 'AbortError') throw new RequestTimeout(`fal did not answer ${where} within ${this.options.timeoutMs} ms.`);
      const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
      throw new ProviderUnavailableError(`Could not reach fal for ${where} (${typeof cause?.code === 'string' ? cause.code : 'network error'}).`);
    }
  }

  private unavailable(answer: HttpAnswer, doing: string): ProviderUnavailableError {
    if (answer.status === 429) {
      const wait = answer.retryAfter !== undefined && /^\s*\d+\s*$/.test(answer.retryAfter) ? Number(answer.retryAfter) : undefined;
      return new ProviderUnavailableError(`fal is rate limiting us while ${doing} (HTTP 429).`, { reason: 'rate_limited', ...(wait !== undefined && { retryAfterSeconds: wait }) });
    }
    const words = answer.status === 401 || answer.status === 403 ? 'the API key was refused' : answer.status >= 500 ? 'fal had a server error' : 'unexpected answer';
    // A 5xx says it is unwell; any other answer says it is up (the circuit counts only the former).
    return new ProviderUnavailableError(`fal answered HTTP ${answer.status} while ${doing}: ${words}.`, { reason: answer.status >= 500 ? 'failing' : 'refused' });
  }

  private redact(message: string): string {
    return message.split(this.options.apiKey).join('[redacted]');
  }
}

/** No whole answer within the budget: the request may have taken effect. */
class RequestTimeout extends ProviderUnavailableError {}

const jobIdOf = (app: string, requestId: string) => `${app}/requests/${requestId}`;

/** Our callback URL with the job's app added (fal's webhook body names the request, not the app). */
function withApp(callbackUrl: string, app: string): string {
  const url = new URL(callbackUrl);
  url.searchParams.set(APP_PARAMETER, app);
  return url.toString();
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** fal's error bodies: `{ detail: string | [{ msg, type }] }`. */
function upstreamDetail(text: string): string | undefined {
  const body = parseObject(text);
  return body ? describeError(undefined, body) : undefined;
}

function describeError(error: unknown, payload: unknown): string {
  const detail = (payload as { detail?: unknown } | undefined)?.detail;
  const parts = [
    typeof error === 'string' ? error : undefined,
    typeof detail === 'string' ? detail : undefined,
    ...(Array.isArray(detail) ? detail.map((item) => [(item as { type?: unknown }).type, (item as { msg?: unknown }).msg].filter((part) => typeof part === 'string').join(': ')) : []),
  ].filter((part): part is string => part !== undefined && part.trim() !== '');
  return truncate(parts.join('; ') || 'fal reported the request as failed.');
}

function truncate(message: string): string {
  return message.length > MAX_UPSTREAM_MESSAGE ? `${message.slice(0, MAX_UPSTREAM_MESSAGE)}...` : message;
}

function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

/** A result's media: `video.url`, `image.url`, `images[].url`, `videos[].url`. */
function outputUrlsOf(result: unknown): string[] {
  const body = result as { video?: { url?: unknown }; image?: { url?: unknown }; images?: unknown; videos?: unknown } | undefined;
  if (!body || typeof body !== 'object') return [];
  const files = [body.video, body.image, ...(Array.isArray(body.images) ? body.images : []), ...(Array.isArray(body.videos) ? body.videos : [])];
  return files.map((file) => (file as { url?: unknown } | undefined)?.url).filter(isHttpUrl);
}

/** fal's `queue_position` when it is one (a whole number, 0 = next); nothing otherwise. */
function queuePositionOf(value: unknown): { queuePosition?: number } {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? { queuePosition: value } : {};
}
