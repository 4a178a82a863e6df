import * as z from 'zod';

/**
 * Field types for providers' settings schemas. A value arrives as text from a function's
 * environment and from `cdk -c key=value`, and as a JSON value from cdk.json: each field takes
 * both. The messages complete a sentence that starts with the variable's or the key's name.
 */

/** A whole number from `min` to `max`, given as a number or as its digits. */
export function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER) {
  const message = max === Number.MAX_SAFE_INTEGER ? `must be a whole number >= ${min}` : `must be a whole number from ${min} to ${max}`;
  return z.preprocess(
    (value) => (typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value),
    z.number({ error: message }).int({ error: message }).min(min, { error: message }).max(max, { error: message }),
  );
}

/** An http(s) URL, kept without a trailing slash. */
export const httpUrl = z
  .string({ error: 'must be an http(s) URL' })
  .refine((value) => {
    try {
      return ['http:', 'https:'].includes(new URL(value).protocol);
    } catch {
      return false;
    }
  }, 'must be an http(s) URL')
  .transform((value) => value.replace(/\/+$/, ''));

/** JSON text, or a JSON object given inline in cdk.json (kept as its text). */
export const jsonText = z.union([z.string(), z.record(z.string(), z.unknown())], { error: 'must be JSON text' }).transform((value, ctx) => {
  if (typeof value !== 'string') return JSON.stringify(value);
  try {
    JSON.parse(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'must be JSON text' });
    return z.NEVER;
  }
  return value;
});
