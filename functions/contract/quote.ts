import * as z from 'zod';
import type { StartRequest } from '#domain/tasks/start-rules';
import type { Quote } from '#domain/tasks/quote';
import { successEnvelopeSchema } from './envelope';
import type { ErrorCode } from './errors';
import { credits, oneOf } from './fields';
import { generateImageRequest, parseImageStart } from './generate-image';
import { generateVideoRequest, parseVideoStart } from './generate-video';

/** POST /quote: a start's body with the kind of start it mirrors, and what that start would cost now. */

const QUOTE_KINDS = ['video', 'image'] as const;
const kindField = oneOf(QUOTE_KINDS);

/** For the API reference: `kind` plus the body of the start it names. Parsing is parseQuote's. */
export const quoteRequest = z
  .union([
    z.object({ kind: z.literal('video').meta({ description: 'Quote a `POST /generate`.' }) }).and(generateVideoRequest),
    z.object({ kind: z.literal('image').meta({ description: 'Quote a `POST /generate-image`.' }) }).and(generateImageRequest),
  ])
  .meta({
    id: 'QuoteRequest',
    description: '`kind` and the body of the start to price: the parameters of `POST /generate` (`video`) or `POST /generate-image` (`image`), validated exactly as that start validates them.',
  });

/**
 * The request a quote prices. `kind` is read first; the rest goes through the start's own
 * parser, so an invalid body gets the 400 the start would give, word for word. A body that is
 * not a JSON object is the start's 400 too (both starts word it the same way).
 */
export function parseQuote(body: unknown): StartRequest {
  const isObject = typeof body === 'object' && body !== null && !Array.isArray(body);
  if (!isObject) return parseVideoStart(body);
  const kind = z.object({ kind: kindField }).parse(body).kind;
  return kind === 'video' ? parseVideoStart(body) : parseImageStart(body);
}

/** The codes a start can be refused with after validation, in the order it checks them. */
export const QUOTE_REASONS = ['paid_access_required', 'spend_limit_exceeded', 'insufficient_credits'] as const;
type QuoteReason = (typeof QUOTE_REASONS)[number];

export const quoteView = z
  .object({
    kind: z.enum(QUOTE_KINDS),
    model: z.string().meta({ description: 'The model priced (the start\'s default when none was given).', examples: ['vid-1-5-pro'] }),
    credits: credits('What the start would charge.'),
    balance: z.number().int().meta({ description: 'The balance it would be charged to (the key\'s mode).' }),
    can_start: z.boolean().meta({ description: 'Whether the same start would be accepted now (a moment later the balance may differ).' }),
    reason: z
      .enum(QUOTE_REASONS)
      .nullable()
      .meta({ description: 'null when `can_start`; else the error code the start would answer with (403).' }),
  })
  .meta({ id: 'Quote' });
export type QuoteView = z.infer<typeof quoteView>;

export const quoteResponse = successEnvelopeSchema('QuoteResponse', quoteView);

/** `reasonCode`: the error code the start answers the quote's refusal with (the one error mapping's). */
export function toQuoteView(quote: Quote, reasonCode: ErrorCode | undefined): QuoteView {
  if (reasonCode !== undefined && !(QUOTE_REASONS as readonly string[]).includes(reasonCode)) {
    throw new Error(`A start is never refused with ${reasonCode} after validation.`);
  }
  const reason = (reasonCode as QuoteReason | undefined) ?? null;
  return { kind: quote.kind, model: quote.model, credits: quote.credits, balance: quote.balance, can_start: reason === null, reason };
}
