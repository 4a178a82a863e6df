import { generateApiKey, hashApiKey, keyIdFromHash, type ApiKeyRecord } from '#domain/accounts/api-key';
import { authenticate } from '#domain/accounts/authenticate';
import { KeyExpiredError, UnauthorizedError } from '#domain/shared/errors';
import { MemoryApiKeyStore } from '#test-support/memory-stores';
import { authorizerContext, principalFrom } from '#http/principal';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { auditEntry, OPERATOR_STAMP } from '#domain/shared/audit';

/** When the keys are presented (the authorizer passes the real clock's now). */
const NOW = new Date('2026-06-01T00:00:00.000Z');

async function storeWithKey(overrides: Partial<ApiKeyRecord> = {}, mode: 'live' | 'test' = 'live') {
  const store = new MemoryApiKeyStore();
  const apiKey = generateApiKey(mode);
  const keyHash = hashApiKey(apiKey);
  await store.create({
    keyId: keyIdFromHash(keyHash),
    keyHash,
    accountId: 'acc_1',
    mode,
    createdAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  }, 50, auditEntry(OPERATOR_STAMP, 'acc_1', 'key.created', { type: 'key', id: keyIdFromHash(keyHash) }, {}, new Date()));
  return { store, apiKey };
}

describe('authenticate', () => {
  it('resolves a valid key to its account with the default rate limit', async () => {
    const { store, apiKey } = await storeWithKey();
    await expect(authenticate(store, `Bearer ${apiKey}`, 60, NOW)).resolves.toEqual({
      kind: 'apiKey',
      partitionId: 'acc_1',
      mode: 'live',
      keyId: keyIdFromHash(hashApiKey(apiKey)),
      rateLimit: 60,
      scopes: ['generate', 'read', 'webhooks'],
    });
  });

  it('resolves a test key to its account\'s test scope, in test mode', async () => {
    const { store, apiKey } = await storeWithKey({}, 'test');
    expect(apiKey).toMatch(/^vg_test_[0-9A-Za-z]{40}$/);
    await expect(authenticate(store, `Bearer ${apiKey}`, 60, NOW)).resolves.toEqual({
      kind: 'apiKey',
      partitionId: 'acc_1_test',
      mode: 'test',
      keyId: keyIdFromHash(hashApiKey(apiKey)),
      rateLimit: 60,
      scopes: ['generate', 'read', 'webhooks'],
    });
  });

  it("carries the key's scopes and monthly spend limits", async () => {
    const { store, apiKey } = await storeWithKey({ scopes: ['read'], monthlySpendLimit: 20, endUserMonthlySpendLimit: 5 });
    await expect(authenticate(store, `Bearer ${apiKey}`, 60, NOW)).resolves.toMatchObject({ scopes: ['read'], monthlySpendLimit: 20, endUserMonthlySpendLimit: 5 });
  });

  it('passes both limits through the authorizer context to the handler; a context cached before the limit per end user existed has none', async () => {
    const { store, apiKey } = await storeWithKey({ monthlySpendLimit: 20, endUserMonthlySpendLimit: 5 });
    const principal = await authenticate(store, `Bearer ${apiKey}`, 60, NOW);
    const eventWith = (context: Record<string, string>) =>
      ({ headers: {}, requestContext: { authorizer: { principalId: principal.partitionId, ...context } } }) as unknown as APIGatewayProxyEvent;
    expect(principalFrom(eventWith(authorizerContext(principal)))).toEqual(principal);
    const { endUserMonthlySpendLimit: _limit, ...older } = authorizerContext(principal);
    expect(principalFrom(eventWith(older))).not.toHaveProperty('endUserMonthlySpendLimit');
    expect(() => principalFrom(eventWith({ ...authorizerContext(principal), endUserMonthlySpendLimit: '2.5' }))).toThrow(UnauthorizedError);
  });

  it('refuses an expired key as expired, and takes it until the instant it expires', async () => {
    const { store, apiKey } = await storeWithKey({ expiresAt: '2027-01-01T00:00:00.000Z' });
    await expect(authenticate(store, `Bearer ${apiKey}`, 60, new Date('2026-12-31T23:59:59.999Z'))).resolves.toMatchObject({ kind: 'apiKey' });
    await expect(authenticate(store, `Bearer ${apiKey}`, 60, new Date('2027-01-01T00:00:00.000Z'))).rejects.toBeInstanceOf(KeyExpiredError);
  });

  it('refuses a revoked key that has also expired as revoked (nothing said about expiry)', async () => {
    const { store, apiKey } = await storeWithKey({ expiresAt: '2020-01-01T00:00:00.000Z', revokedAt: '2020-01-01T00:00:00.000Z' });
    const error = await authenticate(store, `Bearer ${apiKey}`, 60, NOW).catch((caught: unknown) => caught);
    expect([error instanceof UnauthorizedError, error instanceof KeyExpiredError]).toEqual([true, false]);
  });

  it("uses the key's own rate limit when it has one", async () => {
    const { store, apiKey } = await storeWithKey({ rateLimit: 5 });
    await expect(authenticate(store, `Bearer ${apiKey}`, 60, NOW)).resolves.toMatchObject({ rateLimit: 5 });
  });

  it.each([undefined, '', 'Bearer', 'Basic dXNlcjpwYXNz', 'Bearer not-a-key', `Bearer vg_live_${'x'.repeat(10)}`])(
    'refuses %j without a lookup',
    async (header) => {
      const { store } = await storeWithKey();
      await expect(authenticate(store, header, 60, NOW)).rejects.toBeInstanceOf(UnauthorizedError);
      expect(store.lookups).toBe(0);
    },
  );

  it('refuses an unknown well-formed key', async () => {
    const { store } = await storeWithKey();
    await expect(authenticate(store, `Bearer ${generateApiKey()}`, 60, NOW)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(store.lookups).toBe(1);
  });

  it('refuses a revoked key', async () => {
    const { store, apiKey } = await storeWithKey({ revokedAt: '2026-01-02T00:00:00.000Z' });
    await expect(authenticate(store, `Bearer ${apiKey}`, 60, NOW)).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it('refuses a key whose id matches but whose full hash does not', async () => {
    const { store, apiKey } = await storeWithKey();
    const record = [...store.records.values()][0]!;
    record.keyHash = hashApiKey('something else');
    await expect(authenticate(store, `Bearer ${apiKey}`, 60, NOW)).rejects.toBeInstanceOf(UnauthorizedError);
  });
});
