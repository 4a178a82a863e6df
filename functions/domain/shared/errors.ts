/**
 * Typed errors the domain raises. They say what went wrong in business terms; the HTTP layer
 * (functions/http/error-mapping.ts) decides the status code and error.code for each class.
 */
export class DomainError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** A request parameter is missing or invalid. `field` names it when there is one. */
export class ValidationError extends DomainError {
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/** The request body is in an encoding we do not read (a JSON body in another charset than UTF-8). */
export class UnsupportedMediaTypeError extends ValidationError {}

/** The API key is missing, malformed, unknown or revoked. */
export class UnauthorizedError extends DomainError {
  constructor(message = 'Missing or invalid API key. Send Authorization: Bearer <API_KEY>.') {
    super(message);
  }
}

/** The API key was valid but its `expires_at` has passed. */
export class KeyExpiredError extends UnauthorizedError {
  constructor() {
    super(KEY_EXPIRED_MESSAGE);
  }
}
export const KEY_EXPIRED_MESSAGE = 'This API key has expired. Create a new key (POST /keys) and use it instead.';

/** The caller may not use this endpoint: an API key outside its scopes, or on a console-only route. */
export class ForbiddenError extends DomainError {}

/** The key's monthly spend limit would be passed by this start. */
export class SpendLimitExceededError extends DomainError {
  constructor(
    readonly limit: number,
    readonly price: number,
    /** What the key has spent this month, when known. */
    readonly spent?: number,
    message?: string,
  ) {
    super(
      message ??
        `This request costs ${price} credits; this API key's monthly spend limit is ${limit} credits` +
          (spent === undefined ? '' : ` and it has ${Math.max(0, limit - spent)} left this month`) +
          ' (the month is UTC).',
    );
  }
}

/** The key's limit per end user would be passed by this start: answered as a spend limit, saying whose. */
export class EndUserSpendLimitExceededError extends SpendLimitExceededError {
  constructor(
    limit: number,
    price: number,
    readonly endUser: string,
    /** What the end user has spent through the key this month, when known. */
    spent?: number,
  ) {
    super(
      limit,
      price,
      spent,
      `This request costs ${price} credits; this API key allows each end user ${limit} credits a month (end_user_monthly_spend_limit)` +
        (spent === undefined
          ? ', less than this request costs'
          : ` and end user "${endUser}" has ${Math.max(0, limit - spent)} left this month`) +
        ' (the month is UTC). Other end users of this key are not affected.',
    );
  }
}

export class NotFoundError extends DomainError {}

export class InsufficientCreditsError extends DomainError {
  constructor(
    readonly required: number,
    readonly available: number,
  ) {
    super(`This request costs ${required} credits; the account has ${available}.`);
  }
}

export class PaidAccessRequiredError extends DomainError {}

export class IdempotencyConflictError extends DomainError {}

/** Over the per-key request quota for the current window. */
export class RateLimitExceededError extends DomainError {
  constructor(
    readonly retryAfterSeconds: number,
    message = `Rate limit exceeded. Retry after ${retryAfterSeconds} seconds.`,
  ) {
    super(message);
  }
}

/** So many starts for one account at once that this one could not get through in time. */
export class AccountBusyError extends RateLimitExceededError {
  constructor(message = 'Too many generation requests for this account at once. Nothing was charged; retry in a second.') {
    super(1, message);
  }
}

/**
 * A service we depend on (the database) did not answer in time, or refused for load: try again
 * soon. What the request had done may stand (a charge, a task), so a retry that must not start
 * twice goes under the same Idempotency-Key.
 */
export class ServiceBusyError extends DomainError {
  constructor(
    readonly retryAfterSeconds = 1,
    message = 'The service is busy and could not finish this request. Retry in a second, with the same Idempotency-Key for a start.',
  ) {
    super(message);
  }
}

/** A cancel of a task that has already ended (completed or failed). */
export class TaskNotCancelableError extends DomainError {}

/** A deletion of a task's outputs while it is still processing: only a final task's can be deleted. */
export class TaskNotFinalError extends DomainError {}

/** The upstream generation provider failed or refused the request. */
export class UpstreamError extends DomainError {}
