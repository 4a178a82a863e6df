import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A Replicate-compatible HTTP server on 127.0.0.1, for testing the provider adapter.
 *
 * - POST /v1/models/{owner}/{name}/predictions and POST /v1/predictions create a prediction
 *   (201). GET /v1/predictions/{id} reads it; each read moves it one step along the
 *   lifecycle (starting -> processing -> succeeded by default) until setPredictionStatus
 *   pins it. Outputs are URLs under /files/ that this server serves.
 * - Requests without `Authorization: Bearer <apiToken>` get 401.
 * - behave(...) scripts misbehaviour for the next N requests to /v1/.
 * - close() ends pending delays and open connections, so jest sees no open handles.
 */

export type PredictionStatus = 'starting' | 'processing' | 'succeeded' | 'failed' | 'canceled';

export type Misbehaviour =
  /** Any status and JSON body, e.g. 500, 503, 401, 422 with { detail }, 201 without an id. */
  | { kind: 'respond'; status: number; body?: unknown; headers?: Record<string, string> }
  /** 429 with a Retry-After header (seconds). */
  | { kind: 'rate-limit'; retryAfterSeconds: number }
  /** Waits, then answers as usual (the request takes effect late, as a slow server's would). */
  | { kind: 'slow'; delayMs: number }
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
}

export interface FakeReplicateOptions {
  /** The token the fake accepts. Default 'r8_fake_token'. */
  apiToken?: string;
  /** Statuses a prediction goes through, one per read. Default starting, processing, succeeded. */
  lifecycle?: PredictionStatus[];
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
  close(): Promise<void>;
}

const DEFAULT_LIFECYCLE: PredictionStatus[] = ['starting', 'processing', 'succeeded'];

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

  const newId = (): string => randomBytes(10).toString('hex');

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
    };
    predictions.set(id, prediction);
    return prediction;
  }

  function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
    if (res.destroyed) return;
    res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }

  function create(body: unknown, model: string | undefined, res: http.ServerResponse): void {
    const request = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    if (typeof request.input !== 'object' || request.input === null) {
      return send(res, 422, { title: 'Input validation failed', detail: '- input: input is required', status: 422 });
    }
    if (model === undefined && typeof request.version !== 'string') {
      return send(res, 422, { title: 'Invalid version', detail: 'version is required', status: 422 });
    }
    const prediction = addPrediction({
      status: lifecycle[0] ?? 'starting',
      input: request.input,
      ...(model !== undefined && { model }),
      ...(typeof request.version === 'string' && { version: request.version }),
    });
    steps.set(prediction.id, 0);
    send(res, 201, view(prediction));
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
    send(res, 404, { title: 'Not found', detail: 'Not found.', status: 404 });
  }

  function misbehave(m: Misbehaviour, req: http.IncomingMessage, proceed: () => void, res: http.ServerResponse) {
    const okStatus = req.method === 'POST' ? 201 : 200;
    switch (m.kind) {
      case 'respond':
        return send(res, m.status, m.body ?? {}, m.headers);
      case 'rate-limit':
        return send(
          res,
          429,
          { title: 'Too many requests', detail: 'Request was throttled.', status: 429 },
          { 'Retry-After': String(m.retryAfterSeconds) },
        );
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

      if (url.pathname.startsWith('/files/')) {
        res.writeHead(200, { 'Content-Type': url.pathname.endsWith('.mp4') ? 'video/mp4' : 'image/png' });
        return res.end(Buffer.from(`fake media ${url.pathname}`));
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
      prediction.status = status;
      if (output !== undefined) prediction.output = output;
      if (error !== undefined) prediction.error = error;
    },
    addPrediction,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      const closed = new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await closed;
    },
  };
}
