import type { APIGatewayProxyEvent } from 'aws-lambda';
import { ValidationError } from '#domain/shared/errors';
import { paginationQuery } from '#contract/pagination';
import { headerValue } from './headers';

/** The optional Idempotency-Key header: 1 to 255 characters. */
export function idempotencyKeyOf(event: APIGatewayProxyEvent): string | undefined {
  const value = headerValue(event, 'idempotency-key');
  if (value === undefined) return undefined;
  if (value.length < 1 || value.length > 255) {
    throw new ValidationError('Idempotency-Key: must be 1 to 255 characters.', 'Idempotency-Key');
  }
  return value;
}

/** A path parameter, or the same 404 as an unknown id when it is missing. */
export function pathParameter(event: APIGatewayProxyEvent, name: string): string {
  return event.pathParameters?.[name] ?? '';
}

export function parsePagination(event: APIGatewayProxyEvent) {
  return paginationQuery.parse(event.queryStringParameters ?? {});
}
