import type { APIGatewayProxyResult } from 'aws-lambda';

/** Every response body, success or error: `{ data, error }` (SPEC.md 2.1). */
export type ErrorCode =
  | 'validation_error'
  | 'unauthorized'
  | 'insufficient_credits'
  | 'paid_access_required'
  | 'not_found'
  | 'idempotency_conflict'
  | 'payload_too_large'
  | 'rate_limit_exceeded'
  | 'internal_error'
  | 'upstream_error';

export interface Envelope<T = unknown> {
  data: T | null;
  error: { message: string; code: ErrorCode } | null;
}

export const successEnvelope = <T>(data: T): Envelope<T> => ({ data, error: null });

export const errorEnvelope = (code: ErrorCode, message: string): Envelope<never> => ({
  data: null,
  error: { message, code },
});

export function jsonResponse(
  statusCode: number,
  body: Envelope,
  headers: Record<string, string> = {},
): APIGatewayProxyResult {
  return {
    statusCode,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
    body: JSON.stringify(body),
  };
}
