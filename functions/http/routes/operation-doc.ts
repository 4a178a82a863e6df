import type * as z from 'zod';

/** A JSON body or response: its schema and, where the reference shows one, its example. */
export const json = (schema: z.ZodType, example?: unknown) => ({
  content: { 'application/json': { schema, ...(example !== undefined && { example }) } },
});

/** The key header of the curl examples, on a continuation line. */
export const AUTH = '\\\n  -H "Authorization: Bearer $KEY"';

/** How every paged list words its 400. */
export const PAGE_ERROR_NOTE = {
  description: '`page` or `limit` is not an integer in range.',
  example: 'limit: must be an integer from 1 to 50',
};
