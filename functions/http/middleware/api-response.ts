import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { RateLimitExceededError, ServiceBusyError, UpstreamError } from '#domain/shared/errors';
import { logger } from '#observability/logger';
import type { RateDecision } from '#domain/accounts/rate-limit';
import { errorEnvelope } from '#contract/envelope';
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
      if (isDeadline(typed.error)) typed.error = Object.assign(new ServiceBusyError(), { cause: typed.error });
      const error = toHttpError(typed.error);
      logFailure(typed.error, error.status);
      const retryAfter =
        typed.error instanceof RateLimitExceededError || typed.error instanceof ServiceBusyError
          ? { 'Retry-After': String(typed.error.retryAfterSeconds) }
          : undefined;
      typed.response = jsonResponse(error.status, errorEnvelope(error.code, error.message), retryAfter);
      decorate(typed);
    },
  };
}

/**
 * middy's early timeout: the function's time ran out (a dependency slower than the function's
 * timeout allows). A 503 to retry, not a 500: the message names the Idempotency-Key, since a
 * start may have gone through before the deadline.
 */
function isDeadline(error: Error | null | undefined): boolean {
  return error?.name === 'TimeoutError' && (error.cause as { package?: unknown } | undefined)?.package === '@middy/core';
}

/**
 * A 502 is the provider refusing or failing a submission, which happens and was already
 * refunded and logged with its detail: a warning, no stack; so is a 503 (a dependency busy).
 * Any other 5xx is a bug or an outage of ours: an error with the stack. 4xx answers are the client's business, not logged.
 */
function logFailure(error: Error | null | undefined, status: number): void {
  if (status < 500) return;
  if (error instanceof UpstreamError) {
    logger.warn('request failed upstream', { status, reason: error.message });
    return;
  }
  // An outage of a dependency, not a bug: which one, and how (a timeout, throttling), without a stack.
  if (error instanceof ServiceBusyError) {
    logger.warn('request failed: a dependency was busy', { status, cause: error.cause instanceof Error ? error.cause.name : String(error.cause) });
    return;
  }
  logger.error('request failed', { status, error: error ?? new Error('unknown error') });
}
