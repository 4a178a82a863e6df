import { buildAppContext, type AppContext } from '#app-context';
import { keyView, parseCreateKey, parseUpdateKey } from '#contract/keys';
import { createAccount, createApiKey } from '#domain/accounts/account-admin';
import { authenticate } from '#domain/accounts/authenticate';
import { KeyExpiredError, NotFoundError, UnauthorizedError, ValidationError } from '#domain/shared/errors';
import * as keys from '#domain/accounts/key-management';
import { listKeys, MAX_ACTIVE_KEYS, type KeyManagementDeps, type NewKey } from '#domain/accounts/key-management';
import type { ApiKeyChanges } from '#domain/accounts/ports';
import type { AuditStamp } from '#domain/shared/audit';
import { toHttpError } from '#http/error-mapping';
import { createTestDb, dropTestDb, testConfig } from '#test-support/test-db';

/** The key endpoints' use cases, against DynamoDB Local, as a session of the account calls them. */
let ctx: AppContext;
let now = new Date('2026-11-21T17:00:00.000Z');
let deps: KeyManagementDeps;

beforeAll(async () => {
  const db = await createTestDb();
  ctx = buildAppContext(testConfig(db.tableName));
  deps = { apiKeys: ctx.apiKeys, clock: () => now };
  db.doc.destroy();
});

afterAll(async () => {
  await dropTestDb(ctx.db);
});

const newAccount = async () => (await createAccount({ accounts: ctx.accounts, apiKeys: ctx.apiKeys, ledger: ctx.ledger, clock: ctx.clock }, { credits: 100 })).account.accountId;
/** The holder signed in to the console, as the handlers stamp their changes. */
const STAMP: AuditStamp = { actor: { type: 'holder', id: 'holder-alice', email: 'alice@example.com' }, origin: { ip: '127.0.0.1', userAgent: 'jest' } };
const createKey = (d: KeyManagementDeps, partitionId: string, input: NewKey) => keys.createKey(d, partitionId, input, STAMP);
const updateKey = (d: KeyManagementDeps, partitionId: string, keyId: string, changes: ApiKeyChanges) => keys.updateKey(d, partitionId, keyId, changes, STAMP);
const revokeKey = (d: KeyManagementDeps, partitionId: string, keyId: string) => keys.revokeKey(d, partitionId, keyId, STAMP);
/** What a client sees for a thrown error: status, code, message. */
const answerTo = async (promise: Promise<unknown>) => toHttpError(await promise.then(() => new Error('no error'), (error: unknown) => error));
const rejectionOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return toHttpError(error);
  }
  throw new Error('no error');
};

describe('an account holder managing keys', () => {
  it('creates a key that works at once, with its defaults, and shows the key only in that answer', async () => {
    const accountId = await newAccount();
    const { details, apiKey } = await createKey(deps, accountId, parseCreateKey({ name: '  CI  ' }));
    expect(keyView(details)).toEqual({
      key_id: details.record.keyId,
      name: 'CI',
      mode: 'live',
      prefix: apiKey.slice(0, 12),
      scopes: ['generate', 'read', 'webhooks'],
      expires_at: null,
      monthly_spend_limit: null,
      end_user_monthly_spend_limit: null,
      spent_this_month: 0,
      last_used_at: null,
      created_at: now.toISOString(),
      created_by: 'holder-alice',
      revoked_at: null,
    });
    await expect(authenticate(ctx.apiKeys, `Bearer ${apiKey}`, 60, new Date())).resolves.toMatchObject({ partitionId: accountId, keyId: details.record.keyId });
    const [listed] = await listKeys(deps, accountId);
    expect(JSON.stringify(keyView(listed!))).not.toContain(apiKey);
  });

  it('lists newest first, revoked included, both modes, and shows an operator-made key as every scope, no limit, no expiry', async () => {
    const accountId = await newAccount(); // its operator key, made on the wall clock
    const base = Date.now();
    now = new Date(base + 60_000);
    const test = await createKey(deps, accountId, parseCreateKey({ name: 'sandbox', mode: 'test', scopes: ['read', 'generate'] }));
    now = new Date(base + 120_000);
    // An offset is read as the instant it names (shown in UTC).
    const expiry = new Date(base + 30 * 24 * 3600_000);
    const inParis = `${new Date(expiry.getTime() + 2 * 3600_000).toISOString().slice(0, 19)}+02:00`;
    const live = await createKey(deps, `${accountId}_test`, parseCreateKey({ name: 'prod', monthly_spend_limit: 500, expires_at: inParis }));
    await revokeKey(deps, accountId, test.details.record.keyId);
    const keys = (await listKeys(deps, accountId)).map(keyView);
    expect(keys.map((key) => [key.name, key.mode, key.revoked_at !== null])).toEqual([
      ['prod', 'live', false],
      ['sandbox', 'test', true],
      ['Operator key', 'live', false],
    ]);
    expect(keys[0]).toMatchObject({ monthly_spend_limit: 500, expires_at: new Date(Math.floor(expiry.getTime() / 1000) * 1000).toISOString() });
    expect(keys[1]!.scopes).toEqual(['generate', 'read']);
    expect(keys[2]).toMatchObject({ scopes: ['generate', 'read', 'webhooks'], monthly_spend_limit: null, expires_at: null });
    expect(live.details.record.accountId).toBe(accountId);
  });

  it('sets, keeps and removes the limit per end user; the authorizer carries it', async () => {
    const accountId = await newAccount();
    const { details, apiKey } = await createKey(deps, accountId, parseCreateKey({ name: 'platform', end_user_monthly_spend_limit: 50 }));
    const keyId = details.record.keyId;
    expect(keyView(details)).toMatchObject({ monthly_spend_limit: null, end_user_monthly_spend_limit: 50 });
    await expect(authenticate(ctx.apiKeys, `Bearer ${apiKey}`, 60, new Date())).resolves.toMatchObject({ endUserMonthlySpendLimit: 50 });
    expect(keyView(await updateKey(deps, accountId, keyId, parseUpdateKey({ name: 'renamed' })))).toMatchObject({ end_user_monthly_spend_limit: 50 });
    expect(keyView(await updateKey(deps, accountId, keyId, parseUpdateKey({ end_user_monthly_spend_limit: 80 })))).toMatchObject({ end_user_monthly_spend_limit: 80 });
    expect(keyView(await updateKey(deps, accountId, keyId, parseUpdateKey({ end_user_monthly_spend_limit: null }))).end_user_monthly_spend_limit).toBeNull();
    expect((await authenticate(ctx.apiKeys, `Bearer ${apiKey}`, 60, new Date())).endUserMonthlySpendLimit).toBeUndefined();
  });

  it("changes a key's name, scopes and limit; null removes the limit; the change reaches the authorizer", async () => {
    const accountId = await newAccount();
    const { details, apiKey } = await createKey(deps, accountId, parseCreateKey({ name: 'a', monthly_spend_limit: 10 }));
    const keyId = details.record.keyId;
    expect(keyView(await updateKey(deps, accountId, keyId, parseUpdateKey({ name: 'b', scopes: ['read'] })))).toMatchObject({
      name: 'b',
      scopes: ['read'],
      monthly_spend_limit: 10,
    });
    expect(keyView(await updateKey(deps, accountId, keyId, parseUpdateKey({ monthly_spend_limit: null }))).monthly_spend_limit).toBeNull();
    const principal = await authenticate(ctx.apiKeys, `Bearer ${apiKey}`, 60, new Date());
    expect(principal.scopes).toEqual(['read']);
    expect(principal.monthlySpendLimit).toBeUndefined();
  });

  it('revokes a key; revoking twice answers the same; the key stops working', async () => {
    const accountId = await newAccount();
    const { details, apiKey } = await createKey(deps, accountId, parseCreateKey({ name: 'gone' }));
    const first = keyView(await revokeKey(deps, accountId, details.record.keyId));
    now = new Date(now.getTime() + 5000);
    const second = keyView(await revokeKey(deps, accountId, details.record.keyId));
    expect(second).toEqual(first);
    expect(first.revoked_at).not.toBeNull();
    await expect(authenticate(ctx.apiKeys, `Bearer ${apiKey}`, 60, new Date())).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it("never reads, changes or revokes another account's key: 404 as for an unknown key", async () => {
    const a = await newAccount();
    const b = await newAccount();
    const { details, apiKey } = await createKey(deps, b, parseCreateKey({ name: "b's" }));
    const keyId = details.record.keyId;
    expect((await listKeys(deps, a)).map((key) => key.record.keyId)).not.toContain(keyId);
    // One at a time: a refusal must be awaited as it happens, not left pending while another runs.
    const attempts = [() => updateKey(deps, a, keyId, { name: 'mine' }), () => revokeKey(deps, a, keyId), () => revokeKey(deps, a, 'key_000000000000000000000000')];
    for (const attempt of attempts) {
      expect(await answerTo(attempt())).toMatchObject({ status: 404, code: 'not_found' });
    }
    expect(await answerTo(revokeKey(deps, a, keyId))).toMatchObject({ message: `No API key with id "${keyId}".` });
    await expect(authenticate(ctx.apiKeys, `Bearer ${apiKey}`, 60, new Date())).resolves.toMatchObject({ partitionId: b });
    expect((await ctx.apiKeys.get(keyId))?.name).toBe("b's");
  });

  it(`keeps at most ${MAX_ACTIVE_KEYS} unrevoked keys, exactly, even when many are made at once; revoking one frees a place`, async () => {
    const accountId = await newAccount(); // one operator key already
    const made = await Promise.allSettled(Array.from({ length: 55 }, (_, i) => createKey(deps, accountId, { name: `k${i}` })));
    const refused = made.filter((result) => result.status === 'rejected');
    expect(made.length - refused.length).toBe(MAX_ACTIVE_KEYS - 1);
    for (const result of refused) {
      expect(toHttpError((result as PromiseRejectedResult).reason)).toEqual({
        status: 400,
        code: 'validation_error',
        message: `An account can have at most ${MAX_ACTIVE_KEYS} API keys that are not revoked; revoke one first (DELETE /keys/{key_id}).`,
      });
    }
    const [newest] = await listKeys(deps, accountId);
    await revokeKey(deps, accountId, newest!.record.keyId);
    await expect(createKey(deps, accountId, { name: 'again' })).resolves.toBeDefined();
    expect(await answerTo(createKey(deps, accountId, { name: 'one too many' }))).toMatchObject({ status: 400 });
    // The admin CLI is held to the same count.
    await expect(createApiKey({ accounts: ctx.accounts, apiKeys: ctx.apiKeys, ledger: ctx.ledger, clock: ctx.clock }, accountId)).rejects.toBeInstanceOf(ValidationError);
  });

  it('refuses an expired key as expired, from the instant it expires', async () => {
    const accountId = await newAccount();
    now = new Date('2026-11-21T17:00:00.000Z');
    const { apiKey } = await createKey(deps, accountId, parseCreateKey({ name: 'short', expires_at: '2026-11-22T00:00:00Z' }));
    await expect(authenticate(ctx.apiKeys, `Bearer ${apiKey}`, 60, new Date('2026-11-21T23:59:59.000Z'))).resolves.toBeDefined();
    await expect(authenticate(ctx.apiKeys, `Bearer ${apiKey}`, 60, new Date('2026-11-22T00:00:00.000Z'))).rejects.toBeInstanceOf(KeyExpiredError);
  });
});

// Issue 36: who made which key, and every change of a key, in the account's audit log.
describe('the audit log of keys', () => {
  it('records who made, changed and revoked each key (one entry each, none for a repeat or a no-op); operators as operator', async () => {
    const accountId = await newAccount();
    const operatorKey = (await ctx.apiKeys.listForAccount(accountId))[0]!;
    expect(operatorKey.createdBy).toBe('operator');
    const { details, apiKey } = await createKey(deps, `${accountId}_test`, parseCreateKey({ name: 'sandbox', mode: 'test' }));
    const keyId = details.record.keyId;
    await updateKey(deps, accountId, keyId, parseUpdateKey({ name: 'sandbox' }));
    await updateKey(deps, accountId, keyId, parseUpdateKey({ scopes: ['read'], monthly_spend_limit: 9 }));
    await revokeKey(deps, accountId, keyId);
    await revokeKey(deps, accountId, keyId);
    const { entries, hasMore } = await ctx.auditLog.page(accountId, undefined, 50);
    expect(hasMore).toBe(false);
    expect(entries.map((entry) => [entry.action, entry.actor.type, entry.target.id])).toEqual([
      ['key.revoked', 'holder', keyId],
      ['key.updated', 'holder', keyId],
      ['key.created', 'holder', keyId],
      ['key.created', 'operator', operatorKey.keyId],
      // The operator made the account too (admin account create).
      ['account.created', 'operator', accountId],
    ]);
    expect(entries[1]!.details).toEqual({ scopes: { from: ['generate', 'read', 'webhooks'], to: ['read'] }, monthly_spend_limit: { from: null, to: 9 }, mode: 'test' });
    expect(entries[2]).toMatchObject({ accountId, actor: STAMP.actor, origin: { ip: '127.0.0.1', userAgent: 'jest' }, details: { name: 'sandbox', mode: 'test' } });
    expect(entries[3]!.origin).toEqual({ ip: null, userAgent: 'vidgen-admin' });
    const text = JSON.stringify(entries);
    for (const secret of [apiKey, details.record.keyHash, details.record.prefix!]) expect(text).not.toContain(secret);
  });

  it('writes one entry per key made under racing creates, and none for those the limit refused', async () => {
    const accountId = await newAccount();
    const made = await Promise.allSettled(Array.from({ length: MAX_ACTIVE_KEYS + 5 }, (_, i) => createKey(deps, accountId, { name: `k${i}` })));
    const kept = made.filter((result) => result.status === 'fulfilled').length;
    expect(kept).toBe(MAX_ACTIVE_KEYS - 1);
    let entries = 0;
    let after: string | undefined;
    for (;;) {
      const page = await ctx.auditLog.page(accountId, after, 100);
      entries += page.entries.filter((entry) => entry.action === 'key.created').length;
      if (!page.hasMore) break;
      after = page.entries.at(-1)!.id;
    }
    // The operator's first key and each key a holder made.
    expect(entries).toBe(MAX_ACTIVE_KEYS);
  });
});

describe('bad input: 400 naming the field, nothing stored', () => {
  it.each([
    [{ name: 'line\nbreak' }, 'name: must not contain control characters (line breaks, tabs...)'],
    [{ name: 'tab\there' }, 'name: must not contain control characters (line breaks, tabs...)'],
    [{ name: 'x'.repeat(65) }, 'name: must be at most 64 characters'],
    [{ name: '   ' }, 'name: must not be empty'],
    [{}, 'name: is required'],
    [{ name: 'k', monthly_spend_limit: 0 }, 'monthly_spend_limit: must be a whole number of credits, at least 1'],
    [{ name: 'k', monthly_spend_limit: -1 }, 'monthly_spend_limit: must be a whole number of credits, at least 1'],
    [{ name: 'k', monthly_spend_limit: 1.5 }, 'monthly_spend_limit: must be a whole number of credits, at least 1'],
    [{ name: 'k', monthly_spend_limit: '10' }, 'monthly_spend_limit: must be a whole number of credits, at least 1'],
    [{ name: 'k', scopes: ['admin'] }, 'scopes.0: must be one of generate, read, webhooks'],
    [{ name: 'k', scopes: [] }, 'scopes: must name at least one scope (leave it out for all of them)'],
    [{ name: 'k', mode: 'prod' }, 'mode: must be one of live, test'],
    [{ name: 'k', expires_at: 'tomorrow' }, 'expires_at: must be an ISO 8601 instant, e.g. 2027-01-31T00:00:00Z'],
  ])('POST /keys %j', (body, message) => {
    expect(rejectionOf(() => parseCreateKey(body))).toEqual({ status: 400, code: 'validation_error', message });
  });

  it.each([
    [{ monthly_spend_limit: 0 }, 'monthly_spend_limit: must be a whole number of credits, at least 1'],
    [{ monthly_spend_limit: '10' }, 'monthly_spend_limit: must be a whole number of credits, at least 1'],
    [{ end_user_monthly_spend_limit: 0 }, 'end_user_monthly_spend_limit: must be a whole number of credits, at least 1'],
    [{ name: 'a\u0007' }, 'name: must not contain control characters (line breaks, tabs...)'],
  ])('PATCH /keys/{key_id} %j', (body, message) => {
    expect(rejectionOf(() => parseUpdateKey(body))).toEqual({ status: 400, code: 'validation_error', message });
  });

  it.each([
    ['2026-11-21T16:59:59Z', 'expires_at: must be in the future.'],
    ['2028-11-21T17:00:00Z', 'expires_at: must be at most 365 days ahead.'],
  ])('expires_at %s', async (expiresAt, message) => {
    const accountId = await newAccount();
    now = new Date('2026-11-21T17:00:00.000Z');
    expect(await answerTo(createKey(deps, accountId, parseCreateKey({ name: 'k', expires_at: expiresAt })))).toEqual({
      status: 400,
      code: 'validation_error',
      message,
    });
    expect(await listKeys(deps, accountId)).toHaveLength(1);
  });

  it('answers an unknown key id 404 however it is spelled', async () => {
    const accountId = await newAccount();
    await expect(updateKey(deps, accountId, '../../etc', { name: 'x' })).rejects.toBeInstanceOf(NotFoundError);
  });
});
