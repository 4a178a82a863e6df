import { ZodError } from 'zod';
import {
  DomainError,
  IdempotencyConflictError,
  InsufficientCreditsError,
  NotFoundError,
  PaidAccessRequiredError,
  RateLimitExceededError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
  UpstreamError,
  ValidationError,
} from '../domain/errors';
import type { ErrorCode } from './envelope';

export interface HttpError {
  status: number;
  code: ErrorCode;
  message: string;
}

/** Domain error classes and the HTTP answer each gets. Matched with instanceof, in order. */
const DOMAIN_ERRORS: ReadonlyArray<[new (...args: never[]) => DomainError, number, ErrorCode]> = [
  [UnsupportedMediaTypeError, 415, 'validation_error'],
  [ValidationError, 400, 'validation_error'],
  [UnauthorizedError, 401, 'unauthorized'],
  [InsufficientCreditsError, 403, 'insufficient_credits'],
  [PaidAccessRequiredError, 403, 'paid_access_required'],
  [NotFoundError, 404, 'not_found'],
  [IdempotencyConflictError, 409, 'idempotency_conflict'],
  [RateLimitExceededError, 429, 'rate_limit_exceeded'],
  [UpstreamError, 502, 'upstream_error'],
];

const INTERNAL: HttpError = {
  status: 500,
  code: 'internal_error',
  message: 'Something went wrong on our side. Quote the X-Request-Id header if you contact support.',
};

/**
 * Turns any thrown value into the status, code and message a client sees. Only messages we
 * wrote reach the client: an unexpected error becomes a generic 500 (the caller logs it).
 */
export function toHttpError(error: unknown): HttpError {
  for (const [type, status, code] of DOMAIN_ERRORS) {
    if (error instanceof type) return { status, code, message: error.message };
  }
  if (error instanceof ZodError) {
    return { status: 400, code: 'validation_error', message: describeZodError(error) };
  }
  if (isJsonBodyParserError(error)) {
    return {
      status: 400,
      code: 'validation_error',
      message: 'The request body must be a JSON object sent with Content-Type: application/json.',
    };
  }
  return INTERNAL;
}

/** "prompt: Required; duration: must be an integer" — every problem, each naming its field. */
export function describeZodError(error: ZodError): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.length > 0 ? issue.path.join('.') : 'body';
      return `${field}: ${issue.message}`;
    })
    .join('; ');
}

/** @middy/http-json-body-parser throws a bare 415 for a wrong Content-Type or malformed JSON. */
function isJsonBodyParserError(error: unknown): boolean {
  const cause = (error as { cause?: { package?: string } } | null)?.cause;
  return cause?.package === '@middy/http-json-body-parser';
}
