import middy, { type MiddlewareObj } from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { Context } from 'aws-lambda';
import type { TracingMiddleware } from './client-tracing';
import { addRequestKeys, inRequestScope, logger, setInvocation } from './logger';
import { metrics } from './metrics';

/**
 * Powertools' middlewares for every function: the Lambda context on each log line (function
 * name, request id, cold start) and one flush of the invocation's metrics at its end, even
 * when it fails. `requestKeys` picks what names this request in the event (API request id,
 * account, task). Use it first, so it runs around everything else.
 */
// Powertools' middlewares work for any result type; middy types each chain by its handler's.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyResult = any;

export function observability<TEvent>(
  requestKeys?: (event: TEvent) => Record<string, unknown>,
): MiddlewareObj<TEvent, AnyResult>[] {
  return [
    injectLambdaContext(logger) as MiddlewareObj<TEvent, AnyResult>,
    logMetrics(metrics) as MiddlewareObj<TEvent, AnyResult>,
    {
      before: (request) => {
        setInvocation(request.context);
        addRequestKeys(requestKeys?.(request.event) ?? {});
      },
    },
  ];
}

/** Gives every invocation of `handler` its own request keys (the wrapper Lambda calls). */
export function perInvocation<TEvent, TResult>(
  handler: (event: TEvent, context: Context) => Promise<TResult>,
): (event: TEvent, context: Context) => Promise<TResult> {
  return (event, context) => inRequestScope(() => handler(event, context));
}

export interface ObserveOptions<TEvent> {
  requestKeys?: (event: TEvent) => Record<string, unknown>;
  /** X-Ray tracing (`tracing()` from ./tracer), for functions whose bundle can carry it. */
  tracing?: TracingMiddleware;
  /** Errors that are an answer, not a failure (the authorizer's "Unauthorized"): not logged. */
  isExpected?: (error: Error) => boolean;
}

/**
 * A function that is not behind the HTTP middleware (authorizer, sweeper, copy worker): the
 * same logs and metrics, and an unexpected error logged with its stack before Lambda sees it.
 */
export function observe<TEvent, TResult>(
  handler: (event: TEvent, context: Context) => Promise<TResult>,
  options: ObserveOptions<TEvent> = {},
): (event: TEvent, context: Context) => Promise<TResult> {
  const logUnexpected: MiddlewareObj<TEvent, TResult> = {
    onError: ({ error }) => {
      if (error && !options.isExpected?.(error)) logger.error('invocation failed', { error });
    },
  };
  const wrapped = middy<TEvent, TResult>(handler)
    .use(observability(options.requestKeys))
    .use(options.tracing ? [options.tracing] : [])
    .use(logUnexpected);
  return perInvocation(wrapped);
}
