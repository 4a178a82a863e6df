import * as z from 'zod';
import type { Page } from '#domain/shared/page';

/** Pagination of the history lists: the query a client sends and the block it gets back. */

/** A whole-number query parameter in [min, max], `fallback` when absent. */
export const wholeNumberParam = (name: string, min: number, max: number, fallback: number) =>
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

const PAGE = { min: 1, default: 1 } as const;
const LIMIT = { min: 1, max: 50, default: 20 } as const;

export const paginationQuery = z.object({
  page: wholeNumberParam('page', PAGE.min, Number.MAX_SAFE_INTEGER, PAGE.default),
  limit: wholeNumberParam('limit', LIMIT.min, LIMIT.max, LIMIT.default),
});

/**
 * The query parameters as the API reference shows them. They arrive as strings and are parsed
 * by a transform, which zod cannot describe, so the document takes these (from the same bounds).
 */
export const PAGINATION_PARAMETERS = {
  page: {
    description: `Page number, from ${PAGE.min}. Past the last page: an empty list.`,
    schema: { type: 'integer', minimum: PAGE.min, default: PAGE.default },
  },
  limit: {
    description: `Items per page, ${LIMIT.min} to ${LIMIT.max}.`,
    schema: { type: 'integer', minimum: LIMIT.min, maximum: LIMIT.max, default: LIMIT.default },
  },
} as const;

export const pagination = z
  .object({
    page: z.number().int().min(1).meta({ description: 'This page (from 1).' }),
    limit: z.number().int().min(1).max(50).meta({ description: 'Items per page.' }),
    total: z.number().int().nonnegative().meta({ description: 'Items in the whole list (tasks, deliveries or transactions).' }),
    total_pages: z.number().int().nonnegative().meta({ description: '`ceil(total / limit)`.' }),
    has_more: z.boolean().meta({ description: 'Whether a later page has items.' }),
  })
  .meta({ id: 'Pagination', description: 'Where this page sits in the history. A page past the end is empty, not an error.' });

/** A page of items as the domain returns it, for the views. */
export type PageOf<T> = Page<T>;

export function paginationView(page: Page<unknown>): z.infer<typeof pagination> {
  return {
    page: page.page,
    limit: page.limit,
    total: page.total,
    total_pages: page.totalPages,
    has_more: page.hasMore,
  };
}
