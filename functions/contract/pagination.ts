import * as z from 'zod';
import type { Page } from '../domain/list-tasks';

/** Pagination of the history lists: the query a client sends and the block it gets back. */

/** page and limit query parameters: integers, page >= 1, limit 1..50 (default 1 and 20). */
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

export const pagination = z
  .object({
    page: z.number().int().min(1).meta({ description: 'This page (from 1).' }),
    limit: z.number().int().min(1).max(50).meta({ description: 'Items per page.' }),
    total: z.number().int().nonnegative().meta({ description: 'Tasks in the whole history.' }),
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
