import * as z from 'zod';
import { KEY_SCOPES, scopesOf, UNNAMED_KEY, type KeyScope } from '#domain/accounts/api-key';
import { MAX_KEY_LIFETIME_DAYS, MAX_KEY_NAME_LENGTH, type KeyDetails, type NewKey } from '#domain/accounts/key-management';
import { KEY_MODES } from '#domain/shared/partition';
import type { ApiKeyChanges } from '#domain/accounts/ports';
import { successEnvelopeSchema } from './envelope';
import { jsonObject, oneOf, timestamp } from './fields';

/** An account holder's API keys (GET/POST /keys, PATCH/DELETE /keys/{key_id}). */

// C0 and C1 control characters, DEL included: a name is shown in lists and terminals.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;

const nameField = z
  .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
  .trim()
  .min(1, 'must not be empty')
  .max(MAX_KEY_NAME_LENGTH, `must be at most ${MAX_KEY_NAME_LENGTH} characters`)
  .refine((value) => !CONTROL_CHARACTERS.test(value), 'must not contain control characters (line breaks, tabs...)');

const scopesField = z
  .array(oneOf(KEY_SCOPES), { error: `must be an array of scopes (${KEY_SCOPES.join(', ')})` })
  .min(1, 'must name at least one scope (leave it out for all of them)')
  .transform((scopes) => KEY_SCOPES.filter((scope) => scopes.includes(scope)));

const END_USER_LIMIT_WORDS =
  'Credits the key may charge to any one `end_user` per calendar month (UTC), less refunds. With it, every start through the key must name its `end_user`. Default: no limit.';

const limitField = z
  .number({ error: 'must be a whole number of credits, at least 1' })
  .int('must be a whole number of credits, at least 1')
  .min(1, 'must be a whole number of credits, at least 1')
  .max(1_000_000_000, 'must be at most 1000000000');

export const createKeyBody = jsonObject({
  name: nameField.meta({ description: `What the key is for (1 to ${MAX_KEY_NAME_LENGTH} characters, no control characters).`, examples: ['CI pipeline'] }),
  mode: oneOf(KEY_MODES).optional().meta({ description: '`live` (default) or `test`.' }),
  scopes: scopesField.optional().meta({ description: 'What the key may do; default all: `generate`, `read`, `webhooks`.' }),
  expires_at: z.iso
    .datetime({ offset: true, error: 'must be an ISO 8601 instant, e.g. 2027-01-31T00:00:00Z' })
    .optional()
    .meta({ description: `When the key stops working: a future instant at most ${MAX_KEY_LIFETIME_DAYS} days ahead. Default: never.` }),
  monthly_spend_limit: limitField.optional().meta({ description: 'Credits the key may charge per calendar month (UTC). Default: no limit.' }),
  end_user_monthly_spend_limit: limitField.optional().meta({ description: END_USER_LIMIT_WORDS }),
});
export const createKeyRequest = createKeyBody.meta({ id: 'CreateKeyRequest' });

export const updateKeyBody = jsonObject({
  name: nameField.optional(),
  scopes: scopesField.optional(),
  monthly_spend_limit: limitField.nullable().optional().meta({ description: 'A new limit, or null to remove it.' }),
  end_user_monthly_spend_limit: limitField.nullable().optional().meta({ description: 'A new limit per end user, or null to remove it.' }),
});
export const updateKeyRequest = updateKeyBody.meta({ id: 'UpdateKeyRequest' });

export function parseCreateKey(body: unknown): NewKey {
  const parsed = createKeyBody.parse(body);
  return {
    name: parsed.name,
    ...(parsed.mode && { mode: parsed.mode }),
    ...(parsed.scopes && { scopes: parsed.scopes }),
    ...(parsed.expires_at !== undefined && { expiresAt: parsed.expires_at }),
    ...(parsed.monthly_spend_limit !== undefined && { monthlySpendLimit: parsed.monthly_spend_limit }),
    ...(parsed.end_user_monthly_spend_limit !== undefined && { endUserMonthlySpendLimit: parsed.end_user_monthly_spend_limit }),
  };
}

export function parseUpdateKey(body: unknown): ApiKeyChanges {
  const parsed = updateKeyBody.parse(body);
  return {
    ...(parsed.name !== undefined && { name: parsed.name }),
    ...(parsed.scopes && { scopes: parsed.scopes }),
    ...(parsed.monthly_spend_limit !== undefined && { monthlySpendLimit: parsed.monthly_spend_limit }),
    ...(parsed.end_user_monthly_spend_limit !== undefined && { endUserMonthlySpendLimit: parsed.end_user_monthly_spend_limit }),
  };
}

export const apiKey = z
  .object({
    key_id: z.string().meta({ description: 'The key\'s id (`key_` + 24 hex characters); not a secret.', examples: ['key_3f9a1c0d2b7e4a6f8c1d0e2f'] }),
    name: z.string().meta({ description: `What the key is for. Keys made before keys had names are called "${UNNAMED_KEY}".` }),
    mode: z.enum(KEY_MODES),
    prefix: z.string().nullable().meta({ description: 'The first 12 characters of the key, to recognise it; null for keys made before it was kept.', examples: ['vg_live_7Hq2'] }),
    scopes: z.array(z.enum(KEY_SCOPES)).meta({ description: 'What the key may do.' }),
    expires_at: z.iso.datetime().nullable().meta({ description: 'When the key stops working; null: never.' }),
    monthly_spend_limit: z.number().int().positive().nullable().meta({ description: 'Credits the key may charge per calendar month (UTC); null: no limit.' }),
    end_user_monthly_spend_limit: z
      .number()
      .int()
      .positive()
      .nullable()
      .meta({ description: 'Credits the key may charge to any one `end_user` per calendar month (UTC); null: no limit. With it, every start names its `end_user`.' }),
    spent_this_month: z.number().int().nonnegative().meta({ description: 'Credits charged through the key this calendar month (UTC), less their refunds.' }),
    last_used_at: z.iso.datetime().nullable().meta({ description: 'When the key was last used (at most a minute stale); null: never.' }),
    created_at: timestamp('When the key was made.'),
    created_by: z
      .string()
      .nullable()
      .meta({ description: 'Who made the key: the holder id of the account member, or `operator`; null for keys made before this was kept.' }),
    revoked_at: z.iso.datetime().nullable().meta({ description: 'When the key was revoked; null while it works.' }),
  })
  .meta({ id: 'ApiKey' });
export const createdKey = z
  .object({
    ...apiKey.shape,
    api_key: z.string().meta({ description: 'The key itself. Shown only in this answer: store it now.', examples: ['vg_live_7Hq2…'] }),
  })
  .meta({ id: 'CreatedApiKey' });
export const keyList = z.object({ keys: z.array(apiKey).meta({ description: 'Newest first, revoked keys included.' }) }).meta({ id: 'ApiKeyList' });

export const keyResponse = successEnvelopeSchema('ApiKeyResponse', apiKey);
export const createdKeyResponse = successEnvelopeSchema('CreatedApiKeyResponse', createdKey);
export const keyListResponse = successEnvelopeSchema('ApiKeyListResponse', keyList);

export const keyView = ({ record, spentThisMonth }: KeyDetails): z.infer<typeof apiKey> => ({
  key_id: record.keyId,
  name: record.name ?? UNNAMED_KEY,
  mode: record.mode,
  prefix: record.prefix ?? null,
  scopes: scopesOf(record) as KeyScope[],
  expires_at: record.expiresAt ?? null,
  monthly_spend_limit: record.monthlySpendLimit ?? null,
  end_user_monthly_spend_limit: record.endUserMonthlySpendLimit ?? null,
  spent_this_month: Math.max(0, spentThisMonth),
  last_used_at: record.lastUsedAt ?? null,
  created_at: record.createdAt,
  created_by: record.createdBy ?? null,
  revoked_at: record.revokedAt ?? null,
});

export const createdKeyView = (details: KeyDetails, key: string): z.infer<typeof createdKey> => ({ ...keyView(details), api_key: key });
