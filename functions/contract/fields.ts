import * as z from 'zod';
import { PROMPT_MAX_LENGTH } from '#domain/catalogue';

/**
 * Field helpers shared by the contract's schemas: the wording of their messages is what a
 * client reads in a 400, so every endpoint says it the same way.
 */

/** The prompt of both generate endpoints: trimmed, then 1 to PROMPT_MAX_LENGTH characters. */
export const promptField = z
  .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
  .trim()
  .min(1, 'must not be empty')
  .max(PROMPT_MAX_LENGTH, `must be at most ${PROMPT_MAX_LENGTH} characters`);

export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `must be one of ${values.join(', ')}` });

export const httpUrl = z
  .string({ error: 'must be an absolute http(s) URL' })
  .max(2048, 'must be at most 2048 characters')
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'http:' || url.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'must be an absolute http(s) URL');

export const jsonObject = <T extends z.ZodRawShape>(shape: T) => z.object(shape, { error: 'must be a JSON object' });

const EXAMPLE_TIME = '2026-11-21T17:00:00.000Z';

/** An ISO 8601 UTC timestamp in a response. */
export const timestamp = (description: string) => z.iso.datetime().meta({ description, examples: [EXAMPLE_TIME] });

/** A non-negative whole number of credits in a response. */
export const credits = (description: string) => z.number().int().nonnegative().meta({ description });
