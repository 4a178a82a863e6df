import * as z from 'zod';
import {
  capabilitiesOf,
  modelsWith,
  NEGATIVE_PROMPT_MAX_LENGTH,
  PROMPT_MAX_LENGTH,
  SEED_RANGE,
  type Capabilities,
  type ImageModel,
  type VideoModel,
} from '#domain/catalogue/catalogue';

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

/** What the output should not show: trimmed, then 1 to NEGATIVE_PROMPT_MAX_LENGTH characters. */
export const negativePromptField = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, 'must not be empty (leave it out instead)')
  .max(NEGATIVE_PROMPT_MAX_LENGTH, `must be at most ${NEGATIVE_PROMPT_MAX_LENGTH} characters`);

const SEED_WORDS = `must be a whole number from ${SEED_RANGE.min} to ${SEED_RANGE.max}`;

/** A JSON number (not a string of digits), a whole one, in the unsigned 32-bit range. */
export const seedField = z
  .number({ error: SEED_WORDS })
  .int(SEED_WORDS)
  .min(SEED_RANGE.min, SEED_WORDS)
  .max(SEED_RANGE.max, SEED_WORDS);

/** The request fields that need a capability of the model, by the capability. */
const CAPABILITY_FIELDS = {
  seed: 'seed',
  negativePrompt: 'negative_prompt',
  endImage: 'end_image_url',
  referenceImages: 'images',
} as const satisfies Partial<Record<keyof Capabilities, string>>;

/**
 * 400s naming each field the chosen model cannot use (the catalogue's capabilities), with the
 * models that can: the one check for both generate endpoints.
 */
export function refuseUnsupported(
  body: { model: VideoModel | ImageModel } & Partial<Record<(typeof CAPABILITY_FIELDS)[keyof typeof CAPABILITY_FIELDS], unknown>>,
  kind: 'video' | 'image',
  ctx: z.RefinementCtx,
): void {
  const capabilities = capabilitiesOf(body.model);
  for (const [capability, field] of Object.entries(CAPABILITY_FIELDS) as [keyof typeof CAPABILITY_FIELDS, string][]) {
    if (body[field as keyof typeof body] === undefined || capabilities[capability]) continue;
    const able = modelsWith(capability, kind);
    ctx.addIssue({
      code: 'custom',
      path: [field],
      message: `is not supported by the model ${body.model}${able.length > 0 ? `; models that support it: ${able.join(', ')}` : ''}`,
    });
  }
}

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

const END_USER_WORDS = 'must be 1 to 128 characters of A-Z a-z 0-9 _ - . : @';

/** The caller's own user a start is for (CONTRACT.md "End users and metadata"): `#` can never occur, so it is safe in keys. */
export const endUserField = z
  .string({ error: END_USER_WORDS })
  .regex(/^[A-Za-z0-9_\-.:@]{1,128}$/, END_USER_WORDS)
  .meta({
    description: 'Your own id of the user this task is for (opaque to us): 1 to 128 characters of `A-Z a-z 0-9 _ - . : @`. Echoed in views, events and webhooks.',
    examples: ['user_1842'],
  });

export const METADATA_MAX_KEYS = 16;
const METADATA_KEY_WORDS = 'keys must be 1 to 40 characters of A-Z a-z 0-9 _ -';

/** Free-form string values kept with a task: at most 16, keys 1-40 of `A-Z a-z 0-9 _ -`, values up to 500 characters. */
export const metadataField = z
  .record(z.string().regex(/^[A-Za-z0-9_-]{1,40}$/), z.string({ error: 'must be a string' }).max(500, 'must be at most 500 characters'), {
    // An invalid key's issue is the record's own, at the key's path (metadata.<key>).
    error: (issue) => (issue.code === 'invalid_key' ? METADATA_KEY_WORDS : 'must be an object of string values'),
  })
  .refine((value) => Object.keys(value).length <= METADATA_MAX_KEYS, {
    error: (issue) => `must have at most ${METADATA_MAX_KEYS} keys; got ${Object.keys(issue.input as object).length}`,
  })
  .meta({
    description: `Your own string values kept with the task (at most ${METADATA_MAX_KEYS}; keys 1 to 40 characters of \`A-Z a-z 0-9 _ -\`; values at most 500 characters). Echoed in views, events and webhooks; \`{}\` when none were given.`,
    maxProperties: METADATA_MAX_KEYS,
    examples: [{ order_id: '1001' }],
  });
