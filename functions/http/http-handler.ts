import middy, { type MiddlewareObj } from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { Principal } from '#domain/accounts/principal';
import type { RateLimiter } from '#domain/accounts/rate-limit';
import { successEnvelope } from '#contract/envelope';
import type { TracingMiddleware } from '#observability/client-tracing';
import { metrics } from '#observability/metrics';
import { observability, perInvocation } from '#observability/middleware';
import type { CallerKind, Capability, HttpSpec } from '#spec/function-spec';
import { checkAccess } from './access';
import { jsonResponse } from './envelope';
import { apiResponse } from './middleware/api-response';
import { jsonCharset } from './middleware/json-content-type';
import { rateLimit } from './middleware/rate-limit';
import { principalFrom } from './principal';
import { streamedResponse, type StreamedResult, type StreamingLambdaHandler } from './streamed-response';
import { headerValue } from './headers';
import { apiRequestKeys } from './log-keys';

/**
 * The JSON body parser looks only at `content-type` / `Content-Type`; API Gateway keeps the
 * client's casing (`CONTENT-TYPE` is legal HTTP), so give it the lowercase name.
 */
function contentTypeLowercase(): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return {
    before: (request) => {
      const value = headerValue(request.event, 'content-type');
      if (value !== undefined) request.event.headers = { ...request.event.headers, 'content-type': value };
    },
  };
}

export interface ApiInput {
  event: APIGatewayProxyEvent;
  principal: Principal;
  /** The parsed JSON body (unknown until the handler's schema checks it). */
  body: unknown;
}

/** The spec of a route whose callers authenticate (API keys, sessions): what the handler checks. */
export type AuthenticatedSpec = HttpSpec & { readonly access: { readonly callers: readonly [CallerKind, ...CallerKind[]]; readonly capability: Capability } };
/** Its answer streams (`trigger.streaming`): a `streamedApiHandler`. */
export type StreamingSpec = AuthenticatedSpec & { readonly trigger: { readonly streaming: true } };
type BufferedSpec = AuthenticatedSpec & { readonly trigger: { readonly streaming?: undefined } };

export interface HttpHandlerOptions {
  /** Counts each request in its principal's window (the wiring passes app-context's). */
  rateLimiter: RateLimiter;
  /** X-Ray tracing (`tracing()` from observability/tracer), for functions whose bundle can carry it. */
  tracing?: TracingMiddleware;
}

/**
 * Wraps an endpoint's logic in the shared middleware: logs and metrics (Powertools), envelope
 * and errors, X-Request-Id, the rate limit of the caller (`options.rateLimiter`), the access its
 * spec declares (functions/http/access.ts: denied unless the spec names the caller), JSON body
 * parsing when its trigger says `jsonBody`, and optionally tracing. The logic returns `data`;
 * success is always 200.
 */
export function httpHandler(spec: BufferedSpec, logic: (input: ApiInput) => Promise<unknown>, options: HttpHandlerOptions): HttpHandler {
  return apiHandler(spec, async (input) => jsonResponse(200, successEnvelope(await logic(input))), options);
}

/**
 * The same middleware around logic that shapes its own successful response (a protocol other
 * than the envelope: MCP's JSON-RPC). Errors it throws still become the envelope.
 */
export function apiHandler(spec: BufferedSpec, logic: (input: ApiInput) => Promise<APIGatewayProxyResult>, options: HttpHandlerOptions): HttpHandler {
  return middlewareChain(spec, logic, options);
}

/**
 * `apiHandler` for a route whose integration streams (its spec's `trigger.streaming`): the same
 * middleware, then the status and headers go out first and the body as `logic`'s stream yields it.
 */
export function streamedApiHandler(spec: StreamingSpec, logic: (input: ApiInput) => Promise<StreamedResult>, options: HttpHandlerOptions): StreamingLambdaHandler {
  // What the body's writer counted after the middleware's flush (a tool still running) is flushed when the body ends.
  const flushMetrics = () => metrics.publishStoredMetrics();
  return streamedResponse(middlewareChain(spec, logic, options), { afterBody: flushMetrics });
}

function middlewareChain<R extends StreamedResult>(spec: AuthenticatedSpec, logic: (input: ApiInput) => Promise<R>, options: HttpHandlerOptions) {
  // The middlewares set status and headers only, so a streamed body passes through them untouched.
  const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult>(async (event: APIGatewayProxyEvent) => {
    const principal = principalFrom(event);
    checkAccess(principal, spec.access);
    return (await logic({ event, principal, body: event.body })) as APIGatewayProxyResult;
  })
    .use(observability(apiRequestKeys))
    .use(options.tracing ? [options.tracing] : [])
    .use(apiResponse())
    .use(rateLimit(options.rateLimiter));
  if (spec.trigger.jsonBody) handler.use(contentTypeLowercase()).use(jsonCharset()).use(httpJsonBodyParser());
  return perInvocation(handler) as (event: APIGatewayProxyEvent, context: Context) => Promise<R>;
}

export type HttpHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
