import type { APIGatewayProxyEvent } from 'aws-lambda';
import * as z from 'zod';
import { ValidationError } from '../domain/errors';
import { headerValue } from './headers';

/** The optional Idempotency-Key header (CONTRACT.md: 1 to 255 characters). */
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

/** page and limit query parameters (CONTRACT.md: integers, page >= 1, limit 1..50). */
const wholeNumberParam = (name: string, min: number, max: number, fallback: number) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return fallback;
      const value = Number(raw);
      if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) {
        ctx.addIssue({
          code: 'custom',
          message: max === Number.MAX_SAFE_INTEGER ? `must be an integer >= ${min}` : `must be an integer from ${min} to ${max}`,
        });
        return z.NEVER;
      }
      return value;
    })
    .describe(name);

export const paginationQuery = z.object({
  page: wholeNumberParam('page', 1, Number.MAX_SAFE_INTEGER, 1),
  limit: wholeNumberParam('limit', 1, 50, 20),
});

export function parsePagination(event: APIGatewayProxyEvent) {
  return paginationQuery.parse(event.queryStringParameters ?? {});
}
