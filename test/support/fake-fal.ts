import { createHash, generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A fal.ai-compatible queue server on 127.0.0.1, for testing the fal adapter and failover.
 *
 * - POST /{endpoint...}?fal_webhook=URL queues a request: { request_id, status_url, response_url,
 *   cancel_url, queue_position } (the JS client types the answer as InQueueQueueStatus, position
 *   included: https://fal.ai/docs/api-reference/client-libraries/javascript/queue). GET /{owner}/{app}/requests/{id}/status answers IN_QUEUE (with queue_position),
 *   then IN_PROGRESS, then COMPLETED, one step per read; GET /{owner}/{app}/requests/{id} the
 *   result ({ video: { url } } or { images: [{ url }] }), under /files/ which this server serves.
 *   PUT .../cancel cancels one not yet completed (202), else 400 ALREADY_COMPLETED.
 * - With a webhook URL, a request completes `completeDelayMs` after its create and POSTs
 *   { request_id, gateway_request_id, status: "OK", payload } there, signed as fal signs
 *   (ED25519 over request id, user id, timestamp and the body's SHA-256; headers
 *   x-fal-webhook-*), with the current key. GET /.well-known/jwks.json publishes the keys;
 *   rotateKey() adds a new signing key (the old one stays published unless dropped).
 * - behave(...) scripts misbehaviour for the next N creates; every request is counted. Errors
 *   are shaped as fal documents them: a model's refusal (4xx) is `{ detail: [{ loc, msg, type,
 *   url }] }` (https://docs.fal.ai/model-apis/errors), an infrastructure error (5xx) is
 *   `{ detail, error_type }` (https://fal.ai/docs/documentation/model-apis/request-errors). fal's
 *   queue takes every submit (concurrency waits in the queue: https://docs.fal.ai/documentation/
 *   model-apis/concurrency-limits), so a 429 is rare and documents no Retry-After: the fake sends
 *   one only when a test asks.
 * - Requests without `Authorization: Key <apiKey>` get 401.
 */
export type FalMisbehaviour =
  /** Any status; without `body`, fal's documented error body for it. */
  | { kind: 'respond'; status: number; body?: unknown }
  /** 429, with a Retry-After header (seconds) only when `retryAfterSeconds` is given. */
  | { kind: 'rate-limit'; retryAfterSeconds?: number }
  /** The request is queued, but the answer comes after `delayMs` (past the client's timeout). */
  | { kind: 'answer-lost'; delayMs: number }
  /** Destroys the connection without an answer (nothing queued). */
  | { kind: 'reset' };

export interface FakeFalRequest {
  id: string;
  app: string;
  endpoint: string;
  input: Record<string, unknown>;
  webhook?: string;
  reads: number;
  status: 'IN_QUEUE' | 'IN_PROGRESS' | 'COMPLETED' | 'CANCELED';
}

export interface FakeFal {
  baseUrl: string;
  jwksUrl: string;
  apiKey: string;
  userId: string;
  requests: Map<string, FakeFalRequest>;
  behave(misbehaviour: FalMisbehaviour, times?: number): void;
  /** Signs with a new key from now on; `dropOld` unpublishes the previous keys. */
  rotateKey(dropOld?: boolean): void;
  /** Signed headers for `body` (genuine, or with a key fal never published, or at another time). */
  signedHeaders(requestId: string, body: string, options?: { forge?: boolean; offsetSeconds?: number }): Record<string, string>;
  /** The webhook body fal would send now for a request. */
  webhookBody(requestId: string): string;
  stats(): { creates: number; refusedCreates: number; statusReads: number; resultReads: number; cancels: number; jwksFetches: number; callbacksDelivered: number };
  /** Resolves once `count` webhooks were delivered with a 2xx. */
  waitForCallbacks(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const MP4_HEAD = Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypisom', 'latin1'), Buffer.alloc(12)]);
const PNG_HEAD = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);

export async function startFakeFal(options: { apiKey?: string; completeDelayMs?: number } = {}): Promise<FakeFal> {
  const apiKey = options.apiKey ?? 'fal_fake_key';
  const userId = 'user_fake';
  const completeDelayMs = options.completeDelayMs ?? 100;
  const requests = new Map<string, FakeFalRequest>();
  const script: FalMisbehaviour[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const counts = { creates: 0, refusedCreates: 0, statusReads: 0, resultReads: 0, cancels: 0, jwksFetches: 0, callbacksDelivered: 0 };
  const waiters: { count: number; resolve: () => void }[] = [];
  let keys: { privateKey: KeyObject; publicJwk: object }[] = [];
  const forger = generateKeyPairSync('ed25519').privateKey;
  let baseUrl = '';

  const rotateKey = (dropOld = false) => {
    const pair = generateKeyPairSync('ed25519');
    const publicJwk = { ...pair.publicKey.export({ format: 'jwk' }), kid: randomUUID(), use: 'sig', alg: 'EdDSA' };
    keys = [...(dropOld ? [] : keys), { privateKey: pair.privateKey, publicJwk }];
  };
  rotateKey();

  function signedHeaders(requestId: string, body: string, signOptions: { forge?: boolean; offsetSeconds?: number } = {}): Record<string, string> {
    const timestamp = String(Math.floor(Date.now() / 1000) + (signOptions.offsetSeconds ?? 0));
    const message = Buffer.from([requestId, userId, timestamp, createHash('sha256').update(body).digest('hex')].join('\n'));
    const key = signOptions.forge ? forger : keys[keys.length - 1]!.privateKey;
    return {
      'content-type': 'application/json',
      'x-fal-webhook-request-id': requestId,
      'x-fal-webhook-user-id': userId,
      'x-fal-webhook-timestamp': timestamp,
      'x-fal-webhook-signature': sign(null, message, key).toString('hex'),
    };
  }

  const resultOf = (request: FakeFalRequest) =>
    request.endpoint.includes('image') ? { images: [{ url: `${baseUrl}/files/${request.id}.png` }] } : { video: { url: `${baseUrl}/files/${request.id}.mp4` } };

  const webhookBody = (requestId: string) => {
    const request = requests.get(requestId)!;
    return JSON.stringify({ request_id: requestId, gateway_request_id: requestId, status: 'OK', payload: resultOf(request) });
  };

  async function deliver(request: FakeFalRequest): Promise<void> {
    if (!request.webhook || request.status === 'CANCELED') return;
    request.status = 'COMPLETED';
    const body = webhookBody(request.id);
    try {
      const response = await fetch(request.webhook, { method: 'POST', headers: signedHeaders(request.id, body), body, signal: AbortSignal.timeout(10_000) });
      await response.arrayBuffer();
      if (response.ok) {
        counts.callbacksDelivered += 1;
        for (const waiter of waiters.filter((w) => counts.callbacksDelivered >= w.count)) waiter.resolve();
      }
    } catch {
      // A lost delivery: polls recover it.
    }
  }

  const later = (ms: number, task: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      task();
    }, ms);
    timers.add(timer);
  };

  const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

  /** fal's error body for a status: a model error (4xx) or a request error (5xx), as its docs show them. */
  const errorBody = (status: number) =>
    status >= 500
      ? { detail: 'The runner encountered an internal server error.', error_type: status === 503 ? 'runner_scheduling_failure' : 'runner_server_error' }
      : { detail: [{ loc: ['body'], msg: `The request was refused (HTTP ${status}).`, type: 'value_error', url: 'https://docs.fal.ai/errors#value_error' }] };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', baseUrl);
      const path = url.pathname.replace(/^\/+/, '');
      if (req.method === 'GET' && path === '.well-known/jwks.json') {
        counts.jwksFetches += 1;
        return json(res, 200, { keys: keys.map((key) => key.publicJwk) });
      }
      if (req.method === 'GET' && path.startsWith('files/')) {
        res.writeHead(200, { 'content-type': path.endsWith('.png') ? 'image/png' : 'video/mp4' });
        return res.end(path.endsWith('.png') ? PNG_HEAD : MP4_HEAD);
      }
      if (req.headers.authorization !== `Key ${apiKey}`) return json(res, 401, { detail: 'Unauthorized' });
      const requestMatch = /^([^/]+\/[^/]+)\/requests\/([^/]+)(\/status|\/cancel)?$/.exec(path);
      if (requestMatch) {
        const request = requests.get(requestMatch[2]!);
        if (!request || request.app !== requestMatch[1]) return json(res, 404, { detail: 'Request not found' });
        if (requestMatch[3] === '/cancel' && req.method === 'PUT') {
          counts.cancels += 1;
          if (request.status === 'COMPLETED') return json(res, 400, { status: 'ALREADY_COMPLETED' });
          request.status = 'CANCELED';
          return json(res, 202, { status: 'CANCELLATION_REQUESTED' });
        }
        if (requestMatch[3] === '/status') {
          counts.statusReads += 1;
          if (!request.webhook && request.status !== 'CANCELED') {
            request.reads += 1;
            request.status = request.reads === 1 ? 'IN_QUEUE' : request.reads === 2 ? 'IN_PROGRESS' : 'COMPLETED';
          }
          if (request.status === 'CANCELED') return json(res, 200, { status: 'COMPLETED', error: 'Request was cancelled' });
          return json(res, 200, { status: request.status, ...(request.status === 'IN_QUEUE' && { queue_position: 2 }) });
        }
        counts.resultReads += 1;
        if (request.status !== 'COMPLETED') return json(res, 400, { detail: 'Request is still in progress' });
        return json(res, 200, resultOf(request));
      }
      if (req.method === 'POST') {
        const misbehaviour = script.shift();
        if (misbehaviour?.kind === 'reset') {
          counts.refusedCreates += 1;
          return req.socket.destroy();
        }
        if (misbehaviour?.kind === 'respond') {
          counts.refusedCreates += 1;
          return json(res, misbehaviour.status, misbehaviour.body ?? errorBody(misbehaviour.status));
        }
        if (misbehaviour?.kind === 'rate-limit') {
          counts.refusedCreates += 1;
          const retryAfter = misbehaviour.retryAfterSeconds;
          // Its body is not documented: the request errors' flat shape.
          return json(res, 429, { detail: 'Too many requests.' }, retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) });
        }
        counts.creates += 1;
        const id = randomUUID();
        const webhook = url.searchParams.get('fal_webhook') ?? undefined;
        const request: FakeFalRequest = {
          id,
          app: path.split('/').slice(0, 2).join('/'),
          endpoint: path,
          input: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>,
          ...(webhook && { webhook }),
          reads: 0,
          status: 'IN_QUEUE',
        };
        requests.set(id, request);
        if (webhook) later(completeDelayMs, () => void deliver(request));
        const answer = () =>
          json(res, 200, {
            request_id: id,
            response_url: `${baseUrl}/${request.app}/requests/${id}`,
            status_url: `${baseUrl}/${request.app}/requests/${id}/status`,
            cancel_url: `${baseUrl}/${request.app}/requests/${id}/cancel`,
            queue_position: 2,
          });
        if (misbehaviour?.kind === 'answer-lost') later(misbehaviour.delayMs, () => (res.destroyed ? undefined : answer()));
        else answer();
        return;
      }
      json(res, 404, { detail: 'Not found' });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    baseUrl,
    jwksUrl: `${baseUrl}/.well-known/jwks.json`,
    apiKey,
    userId,
    requests,
    behave: (misbehaviour, times = 1) => {
      for (let i = 0; i < times; i += 1) script.push(misbehaviour);
    },
    rotateKey,
    signedHeaders,
    webhookBody,
    stats: () => ({ ...counts }),
    waitForCallbacks: (count, timeoutMs = 10_000) =>
      new Promise<void>((resolve, reject) => {
        if (counts.callbacksDelivered >= count) return resolve();
        const timer = setTimeout(() => reject(new Error(`only ${counts.callbacksDelivered} of ${count} callbacks delivered`)), timeoutMs);
        waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
      }),
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
