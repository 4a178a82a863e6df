/**
 * Bounded waits for every AWS SDK client: a connection timeout, a time limit on each attempt
 * (whole request and response; for S3, which streams large bodies, a limit on socket
 * inactivity instead) and a fixed number of attempts under the SDK's standard retry policy
 * (exponential backoff with jitter; throttling, timeouts and 5xx only). Each worst case sits
 * below the timeout of the functions that make the call (lib/stateless-stack.ts: authorizer
 * 10 s, API functions 28 s, sweeper 2 min, copy worker 5 min), so a stalled service ends in a
 * clean error envelope, not a function timeout. docs/performance.md, "Bounded waits".
 */
export interface ClientBounds {
  /** Opening the TCP (and TLS) connection. */
  connectionTimeoutMs: number;
  /** One attempt, request and response, start to end. */
  requestTimeoutMs?: number;
  /** Socket inactivity (for streamed bodies, where a total limit would cut large objects). */
  idleTimeoutMs?: number;
  /** Attempts in all, the first included. */
  maxAttempts: number;
}

/** DynamoDB answers in milliseconds: 3 x (1 s + 1.5 s) + backoff, under 9 s (authorizer: 10 s). */
export const DYNAMODB_BOUNDS: ClientBounds = { connectionTimeoutMs: 1_000, requestTimeoutMs: 1_500, maxAttempts: 3 };
/**
 * DynamoDB Local is a JVM on a developer's (often busy) machine, where a single call can take
 * seconds: looser, still bounded (under 37.5 s).
 */
export const LOCAL_DYNAMODB_BOUNDS: ClientBounds = { connectionTimeoutMs: 2_000, requestTimeoutMs: 10_000, maxAttempts: 3 };
/** S3: a stalled transfer is cut after 5 s without a byte: 3 x (2 s + 5 s) + backoff, under 22.5 s. */
export const S3_BOUNDS: ClientBounds = { connectionTimeoutMs: 2_000, idleTimeoutMs: 5_000, maxAttempts: 3 };
/** Asynchronous Lambda invocations and Secrets Manager reads: 3 x (1 s + 3 s) + backoff, under 13.5 s. */
export const CONTROL_PLANE_BOUNDS: ClientBounds = { connectionTimeoutMs: 1_000, requestTimeoutMs: 3_000, maxAttempts: 3 };

/**
 * The worst case of one call when the service never answers: every attempt times out, plus
 * the standard policy's backoff before retry n (n = 0, 1, ...): at most 2^n x 500 ms (the
 * throttling base; 100 ms otherwise).
 */
export function worstCaseMs({ connectionTimeoutMs, requestTimeoutMs, idleTimeoutMs, maxAttempts }: ClientBounds): number {
  const backoff = Array.from({ length: maxAttempts - 1 }, (_, n) => 500 * 2 ** n).reduce((a, b) => a + b, 0);
  return maxAttempts * (connectionTimeoutMs + (requestTimeoutMs ?? idleTimeoutMs ?? 0)) + backoff;
}

/** Client configuration fields (every SDK v3 client accepts them). */
export function boundedClientConfig(bounds: ClientBounds) {
  return {
    maxAttempts: bounds.maxAttempts,
    retryMode: 'standard' as const,
    requestHandler: {
      connectionTimeout: bounds.connectionTimeoutMs,
      ...(bounds.requestTimeoutMs !== undefined && { requestTimeout: bounds.requestTimeoutMs, throwOnRequestTimeout: true }),
      ...(bounds.idleTimeoutMs !== undefined && { socketTimeout: bounds.idleTimeoutMs }),
    },
  };
}
