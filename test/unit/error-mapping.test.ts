import { z } from 'zod';
import {
  AccountBusyError,
  IdempotencyConflictError,
  InsufficientCreditsError,
  NotFoundError,
  PaidAccessRequiredError,
  RateLimitExceededError,
  ServiceBusyError,
  UnauthorizedError,
  UpstreamError,
  ValidationError,
} from '#domain/shared/errors';
import { toHttpError } from '#http/error-mapping';

describe('toHttpError', () => {
  it.each([
    [new ValidationError('prompt: required', 'prompt'), 400, 'validation_error'],
    [new UnauthorizedError(), 401, 'unauthorized'],
    [new InsufficientCreditsError(25, 3), 403, 'insufficient_credits'],
    [new PaidAccessRequiredError('needs a subscription'), 403, 'paid_access_required'],
    [new NotFoundError('no such video'), 404, 'not_found'],
    [new IdempotencyConflictError('other body'), 409, 'idempotency_conflict'],
    [new RateLimitExceededError(12), 429, 'rate_limit_exceeded'],
    [new AccountBusyError(), 429, 'rate_limit_exceeded'],
    [new UpstreamError('provider down'), 502, 'upstream_error'],
  ])('maps %p to %i %s with its own message', (error, status, code) => {
    expect(toHttpError(error)).toEqual({ status, code, message: error.message });
  });

  it('answers a busy dependency 503 internal_error, not 500: a retry may get past it', () => {
    const error = new ServiceBusyError();
    expect(toHttpError(error)).toEqual({ status: 503, code: 'internal_error', message: error.message });
  });

  it('names every invalid field of a zod error', () => {
    const schema = z.object({ prompt: z.string(), duration: z.number().int() });
    const result = schema.safeParse({ duration: 5.5 });
    expect(result.success).toBe(false);
    const mapped = toHttpError(result.error);
    expect(mapped.status).toBe(400);
    expect(mapped.code).toBe('validation_error');
    expect(mapped.message).toMatch(/^prompt: /);
    expect(mapped.message).toMatch(/duration: /);
  });

  it("turns the JSON body parser's bare 415 into a 400 validation_error", () => {
    const parserError = Object.assign(new Error('Unsupported Media Type'), {
      statusCode: 415,
      cause: { package: '@middy/http-json-body-parser' },
    });
    expect(toHttpError(parserError)).toMatchObject({ status: 400, code: 'validation_error' });
  });

  it('never passes an unexpected error message to the client', () => {
    const mapped = toHttpError(new Error('ConnectionRefused: 10.0.0.12:8000 secret-table'));
    expect(mapped.status).toBe(500);
    expect(mapped.code).toBe('internal_error');
    expect(mapped.message).not.toMatch(/secret|10\.0/);
  });
});
