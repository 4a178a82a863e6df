import type { APIGatewayProxyResult } from 'aws-lambda';
import type { Envelope } from '#contract/envelope';

/** A JSON response carrying an envelope. */
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
