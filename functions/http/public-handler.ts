import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { observability, perInvocation } from '#observability/middleware';
import { apiRequestKeys } from './log-keys';
import { apiResponse } from './middleware/api-response';

/**
 * For the few routes without an API key (the API reference): the same error envelope and
 * X-Request-Id, no principal and no rate limit. Kept apart from http-handler.ts so these
 * functions do not load the app context (SDK clients, providers) they never use.
 */
export function publicHandler(respond: (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>) {
  return perInvocation(
    middy<APIGatewayProxyEvent, APIGatewayProxyResult>(respond).use(observability(apiRequestKeys)).use(apiResponse()),
  );
}
