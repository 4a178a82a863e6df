import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { errorEnvelope, type Envelope } from '#contract/envelope';
import { GATEWAY_RESPONSES } from '#contract/gateway-responses';

/**
 * The local stack's Node HTTP server, with the answers Node would otherwise give outside the
 * envelope:
 * - before the API is ready (the port is bound first, because the handlers' configuration names
 *   it), a request gets 503 with Retry-After instead of waiting forever for a handler;
 * - a request Node refuses while parsing (headers too large, malformed request line or framing)
 *   gets the envelope instead of Node's bare `HTTP/1.1 400 Bad Request` / 431.
 */
export interface LocalHttpServer {
  server: http.Server;
  /** Hands requests to the API from now on. */
  ready(listener: http.RequestListener): void;
}

export const STARTING = errorEnvelope('internal_error', 'The local stack is still starting; retry in a moment.');

export function createLocalHttpServer(): LocalHttpServer {
  let listener: http.RequestListener | undefined;
  const server = http.createServer((req, res) => {
    if (listener) return listener(req, res);
    req.resume();
    const body = JSON.stringify(STARTING);
    res.writeHead(503, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      'Retry-After': '1',
      'X-Request-Id': randomUUID(),
    });
    res.end(body);
  });
  // Node closes an idle keep-alive connection after 5 s (and says so in Keep-Alive: timeout=5);
  // a client whose event loop stalls near that moment (a loaded CI machine) still reuses the
  // socket as it closes: "other side closed". Longer idles make that moment rarer; API Gateway
  // keeps connections longer still. headersTimeout must exceed it.
  server.keepAliveTimeout = 30_000;
  server.headersTimeout = 31_000;
  server.on('clientError', answerClientError);
  return { server, ready: (next) => (listener = next) };
}

/** What Node's default clientError handling answers, as envelopes (see Node's _http_server.js). */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  // Only when no response of this connection has started: otherwise the bytes would corrupt it.
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy(error);
    return;
  }
  const [status, reason, envelope] = clientErrorAnswer(error.code);
  const body = JSON.stringify(envelope);
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${randomUUID()}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}

function clientErrorAnswer(code: string | undefined): [number, string, Envelope] {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'Request Header Fields Too Large', errorEnvelope('validation_error', 'The request headers are too large.')];
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return [413, 'Payload Too Large', GATEWAY_RESPONSES.payloadTooLarge.body];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'Request Timeout', errorEnvelope('validation_error', 'The request did not arrive in time.')];
    default:
      return [400, 'Bad Request', GATEWAY_RESPONSES.badRequest.body];
  }
}
