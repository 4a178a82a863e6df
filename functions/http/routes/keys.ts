import { ok } from '#contract/examples';
import { createdKeyResponse, createKeyRequest, keyListResponse, keyResponse, updateKeyRequest } from '#contract/keys';
import { keyIdParam } from '#contract/params';
import { MAX_ACTIVE_KEYS } from '#domain/accounts/key-management';
import type { RouteDoc } from '../route';
import { json } from './operation-doc';

/** The console's session header in the curl examples (an API key gets 403 here). */
const SESSION = '\\\n  -H "Authorization: Bearer $SESSION_TOKEN"';

const EXAMPLE_KEY = {
  key_id: 'key_3f9a1c0d2b7e4a6f8c1d0e2f',
  name: 'CI pipeline',
  mode: 'live',
  prefix: 'vg_live_7Hq2',
  scopes: ['generate', 'read'],
  expires_at: null,
  monthly_spend_limit: 500,
  end_user_monthly_spend_limit: null,
  spent_this_month: 120,
  last_used_at: '2026-11-21T17:04:00.000Z',
  created_at: '2026-11-21T17:00:00.000Z',
  created_by: '3f1c2a7e-5b9d-4c0e-8a6f-2d4b1e9c7a05',
  revoked_at: null,
};

const SESSION_ONLY_403 = {
  description: 'An API key called this: keys are managed from a signed-in session (the console).',
  example: 'This endpoint is for signed-in account holders (a console session), not API keys.',
};

/** An account holder's API keys: sessions only. */
export const KEY_DOCS: RouteDoc[] = [
  {
    handler: 'list-keys',
    doc: {
      operationId: 'listKeys',
      summary: 'List your API keys',
      description:
        'Every API key of the account (live and test), newest first, revoked keys included, with what each has spent this month and when it was last used (at most a minute stale). The keys themselves are never shown again: `prefix` tells them apart.',
      tag: 'API keys',
      success: { description: 'The keys.', ...json(keyListResponse, ok({ keys: [EXAMPLE_KEY] })) },
      errors: [401, 403, 429, 500],
      errorNotes: { 403: SESSION_ONLY_403 },
      curl: `curl -s "{BASE}/keys" ${SESSION}`,
    },
  },
  {
    handler: 'create-key',
    doc: {
      operationId: 'createKey',
      summary: 'Create an API key',
      description: `Makes a key with a name, a mode (default \`live\`), scopes (default all: \`generate\` starts, uploads and cancels; \`read\` every GET and quotes; \`webhooks\` every /webhooks endpoint), an optional expiry (at most a year ahead) and an optional monthly spend limit: the credits charged through the key in a calendar month (UTC), less refunds, never pass it; a start that would is refused with 403 \`spend_limit_exceeded\`. The key itself (\`api_key\`) is in this answer only. At most ${MAX_ACTIVE_KEYS} keys that are not revoked per account. Changes to a key (and its revocation or expiry) reach requests within the authorizer's cache time (60 seconds by default).`,
      tag: 'API keys',
      request: {
        body: {
          required: true,
          description: 'Unknown fields are ignored.',
          ...json(createKeyRequest, { name: 'CI pipeline', scopes: ['generate', 'read'], monthly_spend_limit: 500 }),
        },
      },
      success: {
        description: 'The key, with the key itself.',
        ...json(createdKeyResponse, ok({ ...EXAMPLE_KEY, spent_this_month: 0, last_used_at: null, api_key: 'vg_live_7Hq2…' })),
      },
      errors: [400, 401, 403, 413, 429, 500],
      errorNotes: {
        400: {
          description: `A field is invalid (the message names it), or the account already has ${MAX_ACTIVE_KEYS} keys that are not revoked.`,
          example: 'monthly_spend_limit: must be a whole number of credits, at least 1',
        },
        403: SESSION_ONLY_403,
      },
      curl: `curl -s -X POST "{BASE}/keys" ${SESSION} \\\n  -H 'Content-Type: application/json' \\\n  -d '{"name":"CI pipeline","scopes":["generate","read"],"monthly_spend_limit":500}'`,
    },
  },
  {
    handler: 'update-key',
    doc: {
      operationId: 'updateKey',
      summary: 'Change an API key',
      description: 'Renames a key, replaces its scopes or sets its monthly spend limit (`null` removes it). Fields left out keep their value.',
      tag: 'API keys',
      request: {
        params: keyIdParam,
        body: { required: true, description: 'Unknown fields are ignored.', ...json(updateKeyRequest, { monthly_spend_limit: 1000 }) },
      },
      success: { description: 'The key as changed.', ...json(keyResponse, ok({ ...EXAMPLE_KEY, monthly_spend_limit: 1000 })) },
      errors: [400, 401, 403, 404, 413, 429, 500],
      errorNotes: { 403: SESSION_ONLY_403, 404: { example: `No API key with id "${EXAMPLE_KEY.key_id}".` } },
      curl: `curl -s -X PATCH "{BASE}/keys/$KEY_ID" ${SESSION} \\\n  -H 'Content-Type: application/json' \\\n  -d '{"monthly_spend_limit":1000}'`,
    },
  },
  {
    handler: 'revoke-key',
    doc: {
      operationId: 'revokeKey',
      summary: 'Revoke an API key',
      description:
        'Revokes the key: requests with it are refused with 401 within the authorizer\'s cache time (60 seconds by default). Revoking a revoked key answers the same (its first `revoked_at`).',
      tag: 'API keys',
      request: { params: keyIdParam },
      success: { description: 'The key, revoked.', ...json(keyResponse, ok({ ...EXAMPLE_KEY, revoked_at: '2026-11-22T09:30:00.000Z' })) },
      errors: [401, 403, 404, 429, 500],
      errorNotes: { 403: SESSION_ONLY_403, 404: { example: `No API key with id "${EXAMPLE_KEY.key_id}".` } },
      curl: `curl -s -X DELETE "{BASE}/keys/$KEY_ID" ${SESSION}`,
    },
  },
];
