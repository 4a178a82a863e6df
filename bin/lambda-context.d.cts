import type { Context } from 'aws-lambda';

export interface LambdaContextOptions {
  /** `awsRequestId`; a random UUID, as on Lambda, when not given. */
  requestId?: string;
  /** What `getRemainingTimeInMillis` counts down from (30 s by default). */
  timeoutMs?: number;
}

/** A Lambda-like context for `functionName` (see lambda-context.cjs). */
export function lambdaContext(functionName: string, options?: LambdaContextOptions): Context;
