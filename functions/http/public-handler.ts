import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { observability, perInvocation } from '#observability/middleware';
import type { HttpSpec } from '#spec/function-spec';
import { apiRequestKeys } from './log-keys';
import { apiResponse } from './middleware/api-response';

/** The spec of a public route: it has nothing to guard, or checks its own credential (a signature). */
export type PublicSpec = HttpSpec & { readonly access: { readonly callers: readonly ['public'] } };

/**
 * For the few routes without an API key (the API reference, signed callbacks): the same error
 * envelope and X-Request-Id, no principal and no rate limit. Kept apart from http-handler.ts so
 * these functions do not load the app context (SDK clients, providers) they never use. The spec
 * is taken so that only a route declared public can be served this way.
 */
export function publicHandler(_spec: PublicSpec, respond: (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>) {
  return perInvocation(
    middy<APIGatewayProxyEvent, APIGatewayProxyResult>(respond).use(observability(apiRequestKeys)).use(apiResponse()),
  );
}
