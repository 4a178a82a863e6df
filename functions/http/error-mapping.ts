import { ZodError } from 'zod';
import {
  DomainError,
  ForbiddenError,
  IdempotencyConflictError,
  InsufficientCreditsError,
  NotFoundError,
  PaidAccessRequiredError,
  RateLimitExceededError,
  ServiceBusyError,
  SpendLimitExceededError,
  TaskNotCancelableError,
  TaskNotFinalError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
  UpstreamError,
  ValidationError,
} from '#domain/shared/errors';
import { LastOwnerError } from '#domain/accounts/roles';
import { INTERNAL_ERROR_MESSAGE, statusOf, type ErrorCode } from '#contract/errors';
import { describeJsonSyntaxProblem, findJsonSyntaxError } from './json-syntax';

export interface HttpError {
  status: number;
  code: ErrorCode;
  message: string;
}

/** Domain error classes and the code each is answered with. Matched with instanceof, in order. */
const DOMAIN_ERRORS: ReadonlyArray<[new (...args: never[]) => DomainError, ErrorCode]> = [
  [ValidationError, 'validation_error'],
  [UnauthorizedError, 'unauthorized'],
  [ForbiddenError, 'forbidden'],
  [InsufficientCreditsError, 'insufficient_credits'],
  [PaidAccessRequiredError, 'paid_access_required'],
  [SpendLimitExceededError, 'spend_limit_exceeded'],
  [NotFoundError, 'not_found'],
  [IdempotencyConflictError, 'idempotency_conflict'],
  [TaskNotCancelableError, 'task_not_cancelable'],
  [TaskNotFinalError, 'task_not_final'],
  [RateLimitExceededError, 'rate_limit_exceeded'],
  [UpstreamError, 'upstream_error'],
  [LastOwnerError, 'last_owner'],
];

const answer = (code: ErrorCode, message: string): HttpError => ({ status: statusOf(code), code, message });

/**
 * Turns any thrown value into the status, code and message a client sees. Only messages we
 * wrote reach the client: an unexpected error becomes a generic 500 (the caller logs it).
 */
export function toHttpError(error: unknown): HttpError {
  // The one exception to "one status per code": a JSON body in a charset we do not read is a
  // validation error of the request's Content-Type, answered 415 Unsupported Media Type.
  if (error instanceof UnsupportedMediaTypeError) return { status: 415, code: 'validation_error', message: error.message };
  // The other: a dependency too slow or too loaded is a failure on our side (internal_error) that
  // a retry may get past: 503 with Retry-After, which clients retry (docs/decisions.md, "A busy dependency").
  if (error instanceof ServiceBusyError) return { status: 503, code: 'internal_error', message: error.message };
  for (const [type, code] of DOMAIN_ERRORS) {
    if (error instanceof type) return answer(code, error.message);
  }
  if (error instanceof ZodError) return answer('validation_error', describeZodError(error));
  const parserCause = jsonBodyParserCause(error);
  if (parserCause) return answer('validation_error', jsonBodyMessage(parserCause));
  return answer('internal_error', INTERNAL_ERROR_MESSAGE);
}

const JSON_BODY = 'The request body must be a JSON object sent with Content-Type: application/json.';

/** A wrong Content-Type keeps the general message; a body that is not JSON is told where it breaks. */
function jsonBodyMessage(cause: JsonBodyParserCause): string {
  // Only a JSON.parse failure carries a message; a Content-Type refusal carries the header as data.
  if (cause.message === undefined) return JSON_BODY;
  const body = typeof cause.data === 'string' ? cause.data : '';
  if (body.trim() === '') return 'The request body is empty: send a JSON object with Content-Type: application/json.';
  const problem = findJsonSyntaxError(body);
  // No problem found: the body was base64 on the wire, so offsets in it would mislead.
  return problem
    ? `The request body is not valid JSON: ${describeJsonSyntaxProblem(problem)}.`
    : 'The request body is not valid JSON.';
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

interface JsonBodyParserCause {
  package: string;
  /** The Content-Type (refused header) or the body (malformed JSON). */
  data?: unknown;
  /** JSON.parse's message, only when the body did not parse. */
  message?: string;
}

/** @middy/http-json-body-parser throws a bare 415 for a wrong Content-Type or malformed JSON. */
function jsonBodyParserCause(error: unknown): JsonBodyParserCause | undefined {
  const cause = (error as { cause?: JsonBodyParserCause } | null)?.cause;
  return cause?.package === '@middy/http-json-body-parser' ? cause : undefined;
}
