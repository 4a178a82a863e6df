import * as z from 'zod';
import type { ErrorCode } from './errors';

/** Every response body, success or error: `{ data, error }`, exactly one of them non-null. */
export interface Envelope<T = unknown> {
  data: T | null;
  error: { message: string; code: ErrorCode } | null;
}

export const successEnvelope = <T>(data: T): Envelope<T> => ({ data, error: null });

export const errorEnvelope = (code: ErrorCode, message: string): Envelope<never> => ({
  data: null,
  error: { message, code },
});

/** The schema of `{ data, error: null }` around a success payload. */
export const successEnvelopeSchema = <T extends z.ZodType>(id: string, data: T) =>
  z.object({ data, error: z.null() }).meta({ id, description: 'Success: `data` is the result, `error` is null.' });

/** The schema of the error envelope, narrowed to the codes one status can carry. */
export const errorEnvelopeWith = (id: string, codes: readonly [ErrorCode, ...ErrorCode[]]) =>
  z
    .object({
      data: z.null(),
      error: z.object({
        message: z.string(),
        code: z.enum(codes as [ErrorCode, ...ErrorCode[]]),
      }),
    })
    .meta({
      id,
      description: `Error: \`data\` is null, \`error\` has a human-readable \`message\` and the \`code\` ${codes.map((code) => `\`${code}\``).join(' or ')}.`,
    });
