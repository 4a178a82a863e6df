import type { MiddlewareObj } from '@middy/core';

/**
 * Where SDK clients are created (DynamoDB, S3, Lambda, Secrets Manager), they pass through
 * `traced`. It does nothing until a function loads ./tracer, which brings the X-Ray SDK
 * (about 130 KB of bundle) and makes every client record its calls as X-Ray subsegments; the
 * functions that do not load it never carry that weight.
 */
type ClientWrapper = <T>(client: T) => T;

let wrap: ClientWrapper = (client) => client;

export function traced<T>(client: T): T {
  return wrap(client);
}

export function traceClientsWith(wrapper: ClientWrapper): void {
  wrap = wrapper;
}

/** What a traced function adds to its middy chain (for any event and result type). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type TracingMiddleware = MiddlewareObj<any, any>;
