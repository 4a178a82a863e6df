/**
 * Bounded waits for every AWS SDK client: a connection timeout, a socket (request) timeout and
 * a fixed number of attempts with the SDK's standard retry policy (exponential backoff with
 * jitter; throttling and transient errors only). Every bound sits below the timeout of the
 * functions that make the call (lib/stateless-stack.ts: authorizer 10 s, API functions 28 s,
 * sweeper 2 min, copy worker 5 min), so a stalled service ends in a clean error envelope
 * instead of a function timeout. docs/performance.md, "Bounded waits", states the figures.
 */
export interface ClientBounds {
  /** Opening the TCP (and TLS) connection. */
  connectionTimeoutMs: number;
  /** Socket inactivity while waiting for (or reading) the response. */
  requestTimeoutMs: number;
  /** Attempts in all, the first included. */
  maxAttempts: number;
}

/** DynamoDB answers in milliseconds: 3 attempts x (1 s + 1.5 s) + backoff stays under 9 s. */
export const DYNAMODB_BOUNDS: ClientBounds = { connectionTimeoutMs: 1_000, requestTimeoutMs: 1_500, maxAttempts: 3 };
/** S3 streams bodies: the request timeout is inactivity, so large objects are fine. Under 22.5 s. */
export const S3_BOUNDS: ClientBounds = { connectionTimeoutMs: 2_000, requestTimeoutMs: 5_000, maxAttempts: 3 };
/** Asynchronous Lambda invocations and Secrets Manager reads: under 13.5 s. */
export const CONTROL_PLANE_BOUNDS: ClientBounds = { connectionTimeoutMs: 1_000, requestTimeoutMs: 3_000, maxAttempts: 3 };

/**
 * The worst case of one call: every attempt times out, plus the standard policy's backoff
 * before retry n (n = 0, 1, ...): at most 2^n x 100 ms, or 2^n x 500 ms after throttling.
 */
export function worstCaseMs({ connectionTimeoutMs, requestTimeoutMs, maxAttempts }: ClientBounds): number {
  const backoff = Array.from({ length: maxAttempts - 1 }, (_, n) => 500 * 2 ** n).reduce((a, b) => a + b, 0);
  return maxAttempts * (connectionTimeoutMs + requestTimeoutMs) + backoff;
}

/** Client configuration fields (all SDK v3 clients accept them). */
export function boundedClientConfig(bounds: ClientBounds) {
  return {
    maxAttempts: bounds.maxAttempts,
    retryMode: 'standard' as const,
    requestHandler: { connectionTimeout: bounds.connectionTimeoutMs, requestTimeout: bounds.requestTimeoutMs },
  };
}
