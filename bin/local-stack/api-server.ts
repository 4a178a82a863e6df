import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { APIGatewayAuthorizerResult, APIGatewayProxyResult } from 'aws-lambda';
import { GATEWAY_RESPONSES, type GatewayResponse } from '#contract/gateway-responses';
import { gatewayAccess } from '#http/route';
import { ROUTES, type Route } from '#http/routes/index';
import { loadSpecs } from '#spec/registry';
import { AuthorizerCache, policyAllows } from './authorizer-cache';
import { lambdaContext } from '../lambda-context.cjs';
import { invokeStreaming, type StreamedAnswer } from '../lambda-streaming.cjs';
import { loadHandler, type LambdaHandler } from './lambda-runtime';
import { headerOf, methodArn, readCall, toAuthorizerEvent, toProxyEvent, type IncomingCall } from './proxy-event';
import { createRouter } from './router';

/**
 * The local API Gateway: routes a request, runs the REQUEST authorizer (with API Gateway's
 * result cache) unless the route's callers are public, then the endpoint's Lambda handler, in
 * this process. Requests the gateway
 * would refuse itself (unknown route, no key, body too large) get the same envelopes as the
 * gateway responses of the deployed API.
 */

/** Larger than an upload's 10 MiB plus multipart framing, so the handler judges the file size. */
export const LOCAL_MAX_BODY_BYTES = 12 * 1024 * 1024;

export interface ApiServerOptions {
  authCacheTtlSeconds: number;
  routes?: readonly Route[];
  /** Extra routes served before the API (for example media files); return true when handled. */
  fallthrough?: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<boolean>;
}

export function apiRequestListener(options: ApiServerOptions): http.RequestListener {
  const routes = options.routes ?? ROUTES;
  // Read every declaration now, so a route the gateway cannot serve fails the start, not a request.
  const access = new Map(routes.map((route) => [route, gatewayAccess(route)]));
  const match = createRouter(routes);
  const cache = new AuthorizerCache(options.authCacheTtlSeconds);
  // The one function whose trigger is the authorizer (functions/handlers/*.spec.ts).
  const authorizer = loadSpecs().find((spec) => spec.trigger.kind === 'authorizer')!.name;
  const handlers = new Map<string, LambdaHandler>();
  const handlerFor = (name: string) => {
    let handler = handlers.get(name);
    if (!handler) handlers.set(name, (handler = loadHandler(name)));
    return handler;
  };

  async function authorize(call: IncomingCall, route: Route, params: Record<string, string> | null) {
    const identity = headerOf(call, 'authorization');
    // API Gateway answers 401 itself when the identity source is missing.
    if (!identity) return undefined;
    let result = cache.get(identity);
    if (!result) {
      const event = toAuthorizerEvent(call, route, params);
      try {
        result = (await handlerFor(authorizer)(
          event,
          lambdaContext(authorizer, { requestId: call.requestId }),
        )) as APIGatewayAuthorizerResult;
      } catch (error) {
        if (error instanceof Error && error.message === 'Unauthorized') return undefined;
        throw error;
      }
      cache.set(identity, result);
    }
    // A policy that does not allow the route is API Gateway's ACCESS_DENIED (an expired key).
    return policyAllows(result, methodArn(route)) ? result : 'denied';
  }

  async function serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (options.fallthrough && (await options.fallthrough(req, res))) return;

    const body = await readBody(req, LOCAL_MAX_BODY_BYTES);
    const call = readCall(req, body ?? Buffer.alloc(0));
    if (body === undefined) return sendGateway(res, call, GATEWAY_RESPONSES.payloadTooLarge);

    const found = match(call.method, call.path);
    if (!found) return sendGateway(res, call, GATEWAY_RESPONSES.notFound);
    if (found.refused) return sendGateway(res, call, GATEWAY_RESPONSES.methodNotAllowed, { Allow: found.route.method });

    let authorizerContext: (Record<string, string> & { principalId: string }) | undefined;
    if (access.get(found.route) === 'authorizer') {
      const auth = await authorize(call, found.route, found.pathParameters);
      if (!auth) return sendGateway(res, call, GATEWAY_RESPONSES.unauthorized);
      if (auth === 'denied') return sendGateway(res, call, GATEWAY_RESPONSES.expired);
      authorizerContext = { principalId: auth.principalId, ...(auth.context as Record<string, string>) };
    }

    const event = toProxyEvent(call, found.route, found.pathParameters, authorizerContext);
    const handler = handlerFor(found.route.handler);
    const context = lambdaContext(found.route.handler, { requestId: call.requestId });
    if (found.route.streaming) {
      await sendStreamed(res, await invokeStreaming(handler, event, context));
      return;
    }
    send(res, (await handler(event, context)) as APIGatewayProxyResult);
  }

  return (req, res) => {
    serve(req, res).catch((error: unknown) => {
      console.error(JSON.stringify({ level: 'error', message: 'local gateway failure', error: String(error) }));
      if (!res.headersSent) sendGateway(res, undefined, GATEWAY_RESPONSES.internal);
      else res.destroy();
    });
  };
}

/** Reads the whole body, or returns undefined (and drains the rest) once it passes `limit`. */
function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      if (!tooLarge) chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: http.ServerResponse, result: APIGatewayProxyResult): void {
  const headers = Object.create(null) as Record<string, string | string[]>;
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) {
    headers[name] = values.map(String);
  }
  const body = Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8');
  res.writeHead(result.statusCode, { ...headers, 'Content-Length': String(body.length) });
  res.end(body);
}

/** A STREAM integration's answer: status and headers first, then the body as the function writes it (chunked). */
async function sendStreamed(res: http.ServerResponse, answer: StreamedAnswer): Promise<void> {
  res.writeHead(answer.statusCode, { ...answer.headers, ...answer.multiValueHeaders });
  try {
    await pipeline(answer.body, res);
  } catch (error) {
    // A client that stops reading (closes an SSE stream) is not a failure; the function runs on,
    // as on Lambda. A function failing mid-answer rejects with its own error.
    if ((error as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') throw error;
  }
}

function sendGateway(res: http.ServerResponse, call: IncomingCall | undefined, response: GatewayResponse, headers: Record<string, string> = {}): void {
  send(res, {
    statusCode: response.status,
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      'X-Request-Id': call?.requestId ?? randomUUID(),
      ...headers,
    },
    body: JSON.stringify(response.body),
  });
}
