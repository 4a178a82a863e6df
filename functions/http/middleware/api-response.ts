import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { RateLimitExceededError } from '../../domain/errors';
import type { RateDecision } from '../../domain/rate-limit';
import { errorEnvelope } from '../../contract/envelope';
import { jsonResponse } from '../envelope';
import { toHttpError } from '../error-mapping';
import { rateLimitHeaders } from './rate-limit';

type ApiRequest = Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context, { rateLimit?: RateDecision }>;

export function requestIdOf(request: ApiRequest): string {
  return request.event.requestContext?.requestId ?? request.context?.awsRequestId ?? 'unknown';
}

/**
 * The last word on every response: errors become the envelope with their status and code,
 * and every response gets X-Request-Id and, once the key was counted, the X-RateLimit-* headers.
 */
export function apiResponse(): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  const decorate = (request: ApiRequest) => {
    const response = request.response;
    if (!response) return;
    response.headers = {
      ...response.headers,
      'X-Request-Id': requestIdOf(request),
      ...(request.internal.rateLimit && rateLimitHeaders(request.internal.rateLimit)),
    };
  };

  return {
    after: (request) => decorate(request as ApiRequest),
    onError: (request) => {
      const typed = request as ApiRequest;
      const error = toHttpError(typed.error);
      if (error.status >= 500) {
        console.error(
          JSON.stringify({
            level: 'error',
            requestId: requestIdOf(typed),
            message: typed.error?.message,
            stack: typed.error?.stack,
          }),
        );
      }
      const retryAfter =
        typed.error instanceof RateLimitExceededError
          ? { 'Retry-After': String(typed.error.retryAfterSeconds) }
          : undefined;
      typed.response = jsonResponse(error.status, errorEnvelope(error.code, error.message), retryAfter);
      decorate(typed);
    },
  };
}
