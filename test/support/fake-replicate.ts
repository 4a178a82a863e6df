import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';

/**
 * A Replicate-compatible HTTP server on 127.0.0.1, for testing the provider adapter.
 *
 * - POST /v1/models/{owner}/{name}/predictions and POST /v1/predictions create a prediction
 *   (201). GET /v1/predictions/{id} reads it. Outputs are URLs under /files/ that this server
 *   serves.
 * - A create without `webhook` moves by reads: each read moves it one step along the
 *   lifecycle (starting -> processing -> succeeded by default) until setPredictionStatus pins it.
 * - A create with `webhook` moves by time, as a real one does: `startDelayMs` after the create
 *   it is processing (a 'start' callback), `completeDelayMs` after the create it has succeeded
 *   (a 'completed' callback). holdNext(n) keeps the next n at processing until a test moves
 *   them (setPredictionStatus), so no timer ends a job a test means to end itself. Callbacks are
 *   POSTed to the webhook URL with the prediction as the body, signed with Standard Webhooks
 *   using `webhookSecret`, for the events in `webhook_events_filter` (all when it is absent). A
 *   delivery that fails (no 2xx) is retried after each of `callbackRetryDelaysMs`, then given up.
 * - POST /v1/predictions/{id}/cancel cancels a prediction that has not ended (a 'completed'
 *   callback follows); GET /v1/webhooks/default/secret answers `{ key: webhookSecret }`.
 * - `createsPerSecond` limits creates per calendar second: the ones beyond get 429 as the real
 *   API throttles an account: the wait in the body's words and no Retry-After header
 *   (https://replicate.com/docs/topics/predictions/rate-limits, "API response"), unless
 *   `throttleRetryAfterSeconds` asks for one.
 * - Errors are Replicate's problem details: `{ title, detail, status }` (a 422 names the input
 *   field in `detail`; https://replicate.com/docs/reference/http).
 * - Requests without `Authorization: Bearer <apiToken>` get 401.
 * - behave(...) scripts misbehaviour for the next N requests to /v1/; dropCallbacks(n) loses
 *   the next n callbacks; sendCallback(...) sends one now (genuine, forged or stale).
 * - close() ends pending delays, timers, deliveries and open connections, so jest sees no
 *   open handles.
 */

export type PredictionStatus = 'starting' | 'processing' | 'succeeded' | 'failed' | 'canceled';

export type Misbehaviour =
  /** Any status and JSON body, e.g. 500, 503, 401, 422 with { detail }, 201 without an id. */
  | { kind: 'respond'; status: number; body?: unknown; headers?: Record<string, string> }
  /**
   * 429 as Replicate documents it: `{ detail: "Request was throttled. ..." }`, with a
   * Retry-After header (seconds) only when `retryAfterSeconds` is given.
   */
  | { kind: 'rate-limit'; retryAfterSeconds?: number; detail?: string }
  /** Waits, then answers as usual (the request takes effect late, as a slow server's would). */
  | { kind: 'slow'; delayMs: number }
  /**
   * Takes effect after `delayMs` even if the client gave up waiting by then: a create whose
   * answer is lost (the prediction exists, the caller never read its id).
   */
  | { kind: 'answer-lost'; delayMs: number }
  /** A 2xx (201 for a create, 200 otherwise) whose body is not JSON. */
  | { kind: 'malformed-json' }
  /** A normal-looking prediction with a status Replicate does not have. */
  | { kind: 'unknown-status'; status?: string }
  /** Destroys the connection without an answer. */
  | { kind: 'reset' };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body, or the raw text when it is not JSON, or undefined when empty. */
  body: unknown;
}

export interface FakePrediction {
  id: string;
  model?: string;
  version?: string;
  input: unknown;
  status: PredictionStatus;
  output: unknown;
  error: string | null;
  /** Where its callbacks go (time-driven predictions only). */
  webhook?: string;
  /** The events it calls back for; undefined: all. */
  webhookEventsFilter?: string[];
}

export type WebhookEvent = 'start' | 'output' | 'logs' | 'completed';

export interface FakeReplicateOptions {
  /** The token the fake accepts. Default 'r8_fake_token'. */
  apiToken?: string;
  /** Statuses a prediction goes through, one per read. Default starting, processing, succeeded. */
  lifecycle?: PredictionStatus[];
  /** Signs callbacks; default a fresh random "whsec_..." per fake. */
  webhookSecret?: string;
  /** A time-driven prediction is processing this long after its create. Default 50 ms. */
  startDelayMs?: number;
  /** A time-driven prediction has succeeded this long after its create. Default 150 ms. */
  completeDelayMs?: number;
  /** Creates accepted per calendar second; the rest get 429 (as throttled: see the top). Default: no limit. */
  createsPerSecond?: number;
  /** A Retry-After header (seconds) on the 429s of `createsPerSecond`; default none, as Replicate sends. */
  throttleRetryAfterSeconds?: number;
  /** Waits before the retries of a callback that was not answered 2xx. Default 50, 150, 400 ms. */
  callbackRetryDelaysMs?: number[];
}

export interface SentCallback {
  predictionId: string;
  event: WebhookEvent;
  webhookId: string;
  /** The receiver's answer to the last attempt, or the network error's name. */
  result: number | string;
  attempts: number;
  delivered: boolean;
}

/** A signed callback message as the fake made it: what someone on the path could capture and replay. */
export interface SignedMessage {
  predictionId: string;
  event: WebhookEvent;
  /** The webhook URL it was (or would have been) POSTed to. */
  url: string;
  /** Its first attempt's headers (content-type and the three Standard Webhooks headers). */
  headers: Record<string, string>;
  body: string;
  /** Lost on purpose (dropCallbacks): it never reached the receiver. */
  dropped: boolean;
}

export interface SendCallbackOptions {
  /** Sign with a different secret than the fake's (a forgery). */
  forge?: boolean;
  /** Signed this many seconds from now (negative: in the past, e.g. a replay). */
  timestampOffsetSeconds?: number;
  /** Send this body instead of the prediction (still signed). */
  body?: string;
}

export interface FakeReplicateStats {
  /** Predictions created (a 429'd create is not one). */
  creates: number;
  /** When each create was received (ms since the epoch), in order: for burst figures. */
  createTimes: number[];
  /** Creates refused by `createsPerSecond`. */
  throttledCreates: number;
  /** GETs of a prediction that reached the fake. */
  reads: number;
  cancels: number;
  /** Callbacks delivered (a 2xx from the receiver), retries not counted. */
  callbacksSent: number;
  /** Callbacks lost on purpose (dropCallbacks). */
  callbacksDropped: number;
  /** Callbacks given up after every retry failed. */
  callbacksFailed: number;
}

export interface FakeReplicate {
  baseUrl: string;
  apiToken: string;
  requests: RecordedRequest[];
  predictions: Map<string, FakePrediction>;
  /** The next `times` requests to /v1/ misbehave this way (queued after earlier scripts). */
  behave(misbehaviour: Misbehaviour, times?: number): void;
  /** Pins a prediction's state; it no longer moves along the lifecycle. */
  setPredictionStatus(id: string, status: PredictionStatus, output?: unknown, error?: string | null): void;
  /** A prediction created directly, as if by an earlier create. */
  addPrediction(prediction: Partial<FakePrediction> & { status: PredictionStatus }): FakePrediction;
  /** The secret callbacks are signed with (what GET /v1/webhooks/default/secret answers). */
  webhookSecret: string;
  /** Every callback delivery, in the order they finished. */
  callbacks: SentCallback[];
  /** Every callback message made, in order, dropped ones included. */
  messages: SignedMessage[];
  /** The next `count` callbacks are silently not sent (lost callbacks). */
  dropCallbacks(count: number): void;
  /**
   * The next `count` time-driven predictions reach processing (with their 'start' callback) and
   * stay there: no completion timer, so only setPredictionStatus or sendCallback ends them.
   */
  holdNext(count: number): void;
  /**
   * Sends one callback for a prediction now, once (no retry), to its webhook URL or `url`,
   * and answers the receiver's status. Not counted in stats().
   */
  sendCallback(predictionId: string, options?: SendCallbackOptions & { url?: string }): Promise<number>;
  /** Resolves once `count` callbacks have been delivered (or after `timeoutMs`, with what there is). */
  waitForCallbacks(count: number, timeoutMs?: number): Promise<SentCallback[]>;
  stats(): FakeReplicateStats;
  close(): Promise<void>;
}

const DEFAULT_LIFECYCLE: PredictionStatus[] = ['starting', 'processing', 'succeeded'];
const TERMINAL: readonly PredictionStatus[] = ['succeeded', 'failed', 'canceled'];
/** How long a receiver has to answer a callback (ours may wait on a busy account under a race). */
const CALLBACK_TIMEOUT_MS = 10_000;

/** An MP4's `ftyp` box and a PNG's signature with its IHDR chunk header: what a copy sniffs. */
const MP4_HEAD = Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypisom', 'latin1'), Buffer.alloc(12)]);
const PNG_HEAD = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);

const randomSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

export async function startFakeReplicate(options: FakeReplicateOptions = {}): Promise<FakeReplicate> {
  const apiToken = options.apiToken ?? 'r8_fake_token';
  const lifecycle = options.lifecycle ?? DEFAULT_LIFECYCLE;
  const requests: RecordedRequest[] = [];
  const predictions = new Map<string, FakePrediction>();
  /** Predictions still moving along the lifecycle, and where they are. */
  const steps = new Map<string, number>();
  const script: Misbehaviour[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();
  let baseUrl = '';
  const webhookSecret = options.webhookSecret ?? randomSecret();
  const startDelayMs = options.startDelayMs ?? 50;
  const completeDelayMs = Math.max(startDelayMs, options.completeDelayMs ?? 150);
  const callbackRetryDelaysMs = options.callbackRetryDelaysMs ?? [50, 150, 400];
  /** Timers of time-driven predictions, so a cancel or a pin stops them. */
  const lifecycleTimers = new Map<string, NodeJS.Timeout[]>();
  const callbacks: SentCallback[] = [];
  const messages: SignedMessage[] = [];
  const deliveries = new AbortController();
  const counts = { creates: 0, throttledCreates: 0, reads: 0, cancels: 0, callbacksSent: 0, callbacksDropped: 0, callbacksFailed: 0 };
  const createTimes: number[] = [];
  let callbacksToDrop = 0;
  let predictionsToHold = 0;
  let createWindow = { second: -1, count: 0 };

  const newId = (): string => randomBytes(10).toString('hex');

  /** Runs `task` after `ms`, unless close() comes first. */
  function later(ms: number, task: () => void): NodeJS.Timeout {
    const timer = setTimeout(() => {
      timers.delete(timer);
      task();
    }, ms);
    timers.add(timer);
    return timer;
  }

  function stopLifecycle(id: string): void {
    for (const timer of lifecycleTimers.get(id) ?? []) {
      clearTimeout(timer);
      timers.delete(timer);
    }
    lifecycleTimers.delete(id);
  }

  /** One signed POST of `body`; answers the receiver's status or the network error's name. */
  function signedHeaders(webhookId: string, body: string, secret: string, offsetSeconds = 0): Record<string, string> {
    const at = new Date(Date.now() + offsetSeconds * 1000);
    return {
      'content-type': 'application/json',
      'webhook-id': webhookId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(webhookId, at, body),
    };
  }

  async function post(url: string, webhookId: string, body: string, secret: string, offsetSeconds = 0, record?: (headers: Record<string, string>) => void): Promise<number | string> {
    const headers = signedHeaders(webhookId, body, secret, offsetSeconds);
    record?.(headers);
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers,
        body,
        redirect: 'manual',
        signal: AbortSignal.any([deliveries.signal, AbortSignal.timeout(CALLBACK_TIMEOUT_MS)]),
      });
      await response.arrayBuffer();
      return response.status;
    } catch (error) {
      // Fetch's DOMException is not an Error in jest's realm: read the name either way.
      const name = (error as { name?: unknown } | null)?.name;
      return typeof name === 'string' ? name : 'network error';
    }
  }

  /** A callback for one event of a prediction, as Replicate sends it: retried, then given up. */
  function callBack(prediction: FakePrediction, event: WebhookEvent): void {
    const { webhook, webhookEventsFilter } = prediction;
    if (webhook === undefined || (webhookEventsFilter !== undefined && !webhookEventsFilter.includes(event))) return;
    const body = JSON.stringify(view(prediction));
    const webhookId = `msg_${newId()}`;
    const message = { predictionId: prediction.id, event, url: webhook, body };
    if (callbacksToDrop > 0) {
      callbacksToDrop -= 1;
      counts.callbacksDropped += 1;
      messages.push({ ...message, headers: signedHeaders(webhookId, body, webhookSecret), dropped: true });
      return;
    }
    const attempt = async (n: number): Promise<void> => {
      if (deliveries.signal.aborted) return;
      const record = n === 1 ? (headers: Record<string, string>) => void messages.push({ ...message, headers, dropped: false }) : undefined;
      const result = await post(webhook, webhookId, body, webhookSecret, 0, record);
      const delivered = typeof result === 'number' && result >= 200 && result <= 299;
      const retryIn = callbackRetryDelaysMs[n - 1];
      if (!delivered && retryIn !== undefined && !deliveries.signal.aborted) {
        later(retryIn, () => void attempt(n + 1));
        return;
      }
      if (deliveries.signal.aborted) return;
      callbacks.push({ predictionId: prediction.id, event, webhookId, result, attempts: n, delivered });
      if (delivered) counts.callbacksSent += 1;
      else counts.callbacksFailed += 1;
    };
    void attempt(1);
  }

  /** Moves a time-driven prediction to processing, then to succeeded, calling back at each. */
  function runByTime(prediction: FakePrediction): void {
    const start = later(startDelayMs, () => {
      prediction.status = 'processing';
      callBack(prediction, 'start');
    });
    if (predictionsToHold > 0) {
      predictionsToHold -= 1;
      lifecycleTimers.set(prediction.id, [start]);
      return;
    }
    const complete = later(completeDelayMs, () => {
      lifecycleTimers.delete(prediction.id);
      prediction.status = 'succeeded';
      callBack(prediction, 'completed');
    });
    lifecycleTimers.set(prediction.id, [start, complete]);
  }

  /** Within `createsPerSecond` for this calendar second (counting this create)? */
  function createAllowed(): boolean {
    if (options.createsPerSecond === undefined) return true;
    const second = Math.floor(Date.now() / 1000);
    if (createWindow.second !== second) createWindow = { second, count: 0 };
    if (createWindow.count >= options.createsPerSecond) return false;
    createWindow.count += 1;
    return true;
  }

  function view(p: FakePrediction): Record<string, unknown> {
    return {
      id: p.id,
      model: p.model ?? 'fake/model',
      version: p.version ?? 'fake-version',
      input: p.input,
      status: p.status,
      output: p.status === 'succeeded' ? p.output : null,
      error: p.error,
      logs: '',
      created_at: new Date().toISOString(),
      urls: {
        get: `${baseUrl}/v1/predictions/${p.id}`,
        cancel: `${baseUrl}/v1/predictions/${p.id}/cancel`,
      },
    };
  }

  function addPrediction(partial: Partial<FakePrediction> & { status: PredictionStatus }): FakePrediction {
    const id = partial.id ?? newId();
    const prediction: FakePrediction = {
      id,
      input: partial.input ?? {},
      status: partial.status,
      output: partial.output === undefined ? `${baseUrl}/files/${id}.mp4` : partial.output,
      error: partial.error ?? null,
      ...(partial.model !== undefined && { model: partial.model }),
      ...(partial.version !== undefined && { version: partial.version }),
      ...(partial.webhook !== undefined && { webhook: partial.webhook }),
      ...(partial.webhookEventsFilter !== undefined && { webhookEventsFilter: partial.webhookEventsFilter }),
    };
    predictions.set(id, prediction);
    return prediction;
  }

  function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
    if (res.destroyed) return;
    res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }

  /**
   * Replicate's 429: the body is its only documented part ("Request was throttled. Expected
   * available in 1 second."); a Retry-After header only when a test asks for one.
   */
  function throttled(res: http.ServerResponse, retryAfterSeconds?: number, detail = 'Request was throttled. Expected available in 1 second.'): void {
    send(res, 429, { detail }, retryAfterSeconds === undefined ? {} : { 'Retry-After': String(retryAfterSeconds) });
  }

  function create(body: unknown, model: string | undefined, res: http.ServerResponse): void {
    const request = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    if (!createAllowed()) {
      counts.throttledCreates += 1;
      return throttled(res, options.throttleRetryAfterSeconds);
    }
    if (typeof request.input !== 'object' || request.input === null) {
      return send(res, 422, { title: 'Input validation failed', detail: '- input: input is required', status: 422 });
    }
    if (model === undefined && typeof request.version !== 'string') {
      return send(res, 422, { title: 'Invalid version', detail: 'version is required', status: 422 });
    }
    const { webhook, webhook_events_filter: filter } = request;
    if (webhook !== undefined && (typeof webhook !== 'string' || !/^https?:\/\//.test(webhook))) {
      return send(res, 422, { title: 'Invalid webhook', detail: '- webhook: must be a URL', status: 422 });
    }
    if (filter !== undefined && !(Array.isArray(filter) && filter.every((e) => ['start', 'output', 'logs', 'completed'].includes(e as string)))) {
      return send(res, 422, { title: 'Invalid webhook_events_filter', detail: '- webhook_events_filter: unknown event', status: 422 });
    }
    counts.creates += 1;
    createTimes.push(Date.now());
    const prediction = addPrediction({
      status: webhook === undefined ? (lifecycle[0] ?? 'starting') : 'starting',
      input: request.input,
      ...(model !== undefined && { model }),
      ...(typeof request.version === 'string' && { version: request.version }),
      ...(webhook !== undefined && { webhook }),
      ...(filter !== undefined && { webhookEventsFilter: filter as string[] }),
    });
    if (webhook === undefined) steps.set(prediction.id, 0);
    else runByTime(prediction);
    send(res, 201, view(prediction));
  }

  /** Replicate's cancel: a prediction that has not ended is canceled and calls back 'completed'. */
  function cancel(id: string, res: http.ServerResponse): void {
    const prediction = predictions.get(id);
    if (!prediction) return send(res, 404, { title: 'Not found', detail: 'Not found.', status: 404 });
    if (!TERMINAL.includes(prediction.status)) {
      stopLifecycle(id);
      steps.delete(id);
      prediction.status = 'canceled';
      callBack(prediction, 'completed');
    }
    send(res, 200, view(prediction));
  }

  function read(id: string, res: http.ServerResponse): void {
    const prediction = predictions.get(id);
    if (!prediction) return send(res, 404, { title: 'Not found', detail: 'Not found.', status: 404 });
    const step = steps.get(id);
    if (step !== undefined) {
      const next = Math.min(step + 1, lifecycle.length - 1);
      steps.set(id, next);
      prediction.status = lifecycle[next] ?? prediction.status;
    }
    send(res, 200, view(prediction));
  }

  /** The real API's behaviour. */
  function route(method: string, path: string, body: unknown, res: http.ServerResponse): void {
    const modelCreate = /^\/v1\/models\/([^/]+)\/([^/]+)\/predictions$/.exec(path);
    if (method === 'POST' && modelCreate) return create(body, `${modelCreate[1]}/${modelCreate[2]}`, res);
    if (method === 'POST' && path === '/v1/predictions') return create(body, undefined, res);
    const get = /^\/v1\/predictions\/([^/]+)$/.exec(path);
    if (method === 'GET' && get?.[1] !== undefined) return read(decodeURIComponent(get[1]), res);
    const cancelPath = /^\/v1\/predictions\/([^/]+)\/cancel$/.exec(path);
    if (method === 'POST' && cancelPath?.[1] !== undefined) return cancel(decodeURIComponent(cancelPath[1]), res);
    if (method === 'GET' && path === '/v1/webhooks/default/secret') return send(res, 200, { key: webhookSecret });
    send(res, 404, { title: 'Not found', detail: 'Not found.', status: 404 });
  }

  function misbehave(m: Misbehaviour, req: http.IncomingMessage, proceed: () => void, res: http.ServerResponse) {
    const okStatus = req.method === 'POST' ? 201 : 200;
    switch (m.kind) {
      case 'respond':
        return send(res, m.status, m.body ?? {}, m.headers);
      case 'rate-limit':
        return throttled(res, m.retryAfterSeconds, m.detail);
      case 'slow': {
        const timer = setTimeout(() => {
          timers.delete(timer);
          proceed();
        }, m.delayMs);
        timers.add(timer);
        res.on('close', () => {
          clearTimeout(timer);
          timers.delete(timer);
        });
        return;
      }
      case 'answer-lost': {
        const timer = setTimeout(() => {
          timers.delete(timer);
          proceed();
        }, m.delayMs);
        timers.add(timer);
        return;
      }
      case 'malformed-json':
        if (res.destroyed) return;
        res.writeHead(okStatus, { 'Content-Type': 'application/json' });
        return res.end('{"id": "abc", "status": "succ');
      case 'unknown-status': {
        const readId = /^\/v1\/predictions\/([^/]+)$/.exec(new URL(req.url ?? '/', 'http://fake').pathname)?.[1];
        const prediction =
          (readId !== undefined && predictions.get(decodeURIComponent(readId))) ||
          addPrediction({ status: 'starting' });
        return send(res, okStatus, { ...view(prediction), status: m.status ?? 'queued_somewhere' });
      }
      case 'reset':
        return req.socket.destroy();
    }
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      if (text !== '') {
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
      }
      const method = req.method ?? 'GET';
      requests.push({ method, path: url.pathname, headers: req.headers, body });
      if (method === 'GET' && /^\/v1\/predictions\/[^/]+$/.test(url.pathname)) counts.reads += 1;
      if (method === 'POST' && /^\/v1\/predictions\/[^/]+\/cancel$/.test(url.pathname)) counts.cancels += 1;

      if (url.pathname.startsWith('/files/')) {
        // The first bytes of a real file of its kind (what the copy checks), then the path.
        const video = url.pathname.endsWith('.mp4');
        const head = video ? MP4_HEAD : PNG_HEAD;
        res.writeHead(200, { 'Content-Type': video ? 'video/mp4' : 'image/png' });
        return res.end(Buffer.concat([head, Buffer.from(`fake media ${url.pathname}`)]));
      }
      const proceed = (): void => {
        if (req.headers.authorization !== `Bearer ${apiToken}`) {
          const detail = 'You did not pass a valid authentication token';
          return send(res, 401, { title: 'Unauthenticated', detail, status: 401 });
        }
        if (typeof body === 'string') return send(res, 400, { detail: 'Request body is not JSON.', status: 400 });
        route(method, url.pathname, body, res);
      };
      const misbehaviour = url.pathname.startsWith('/v1/') ? script.shift() : undefined;
      if (misbehaviour) misbehave(misbehaviour, req, proceed, res);
      else proceed();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    baseUrl,
    apiToken,
    requests,
    predictions,
    behave(misbehaviour, times = 1) {
      for (let i = 0; i < times; i++) script.push(misbehaviour);
    },
    setPredictionStatus(id, status, output, error) {
      const prediction = predictions.get(id);
      if (!prediction) throw new Error(`The fake has no prediction ${id}.`);
      steps.delete(id);
      const wasRunning = lifecycleTimers.has(id);
      stopLifecycle(id);
      prediction.status = status;
      if (output !== undefined) prediction.output = output;
      if (error !== undefined) prediction.error = error;
      // A time-driven prediction pinned to its end calls back as if it had got there itself.
      if (wasRunning && TERMINAL.includes(status)) callBack(prediction, 'completed');
    },
    addPrediction,
    webhookSecret,
    callbacks,
    messages,
    dropCallbacks(count) {
      callbacksToDrop += count;
    },
    holdNext(count) {
      predictionsToHold += count;
    },
    async sendCallback(predictionId, sendOptions = {}) {
      const prediction = predictions.get(predictionId);
      if (!prediction) throw new Error(`The fake has no prediction ${predictionId}.`);
      const url = sendOptions.url ?? prediction.webhook;
      if (url === undefined) throw new Error(`Prediction ${predictionId} has no webhook URL.`);
      const secret = sendOptions.forge ? randomSecret() : webhookSecret;
      const body = sendOptions.body ?? JSON.stringify(view(prediction));
      const result = await post(url, `msg_${newId()}`, body, secret, sendOptions.timestampOffsetSeconds);
      if (typeof result !== 'number') throw new Error(`The callback could not be sent (${result}).`);
      return result;
    },
    async waitForCallbacks(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (callbacks.filter((c) => c.delivered).length < count && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return callbacks.filter((c) => c.delivered);
    },
    stats() {
      return { ...counts, createTimes: [...createTimes] };
    },
    async close() {
      deliveries.abort();
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      lifecycleTimers.clear();
      const closed = new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await closed;
    },
  };
}
