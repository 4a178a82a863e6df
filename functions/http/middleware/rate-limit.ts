import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { RateLimitExceededError } from '#domain/shared/errors';
import type { RateDecision, RateLimiter } from '#domain/accounts/rate-limit';
import { principalFrom } from '../principal';

export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(decision.resetAt),
  };
}

/**
 * Counts the request against its principal's window before anything else runs (the API's
 * order: auth, rate limit, validation), so a refused request does no work and charges nothing.
 */
export function rateLimit(limiter: RateLimiter): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return {
    before: async (request) => {
      // A holder's window is the same in every account and both modes: counted before their
      // Vidgen-Mode and Vidgen-Account are read, so a bad header is answered 400 after the count,
      // like any other invalid request.
      const decision = await limiter.consume(principalFrom(request.event, () => 'live', () => undefined));
      (request.internal as { rateLimit?: RateDecision }).rateLimit = decision;
      if (!decision.allowed) throw new RateLimitExceededError(decision.retryAfter ?? 1);
    },
  };
}
