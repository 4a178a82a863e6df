import { generateApiKey, hashApiKey, keyIdFromHash } from '#domain/api-key';
import { authenticate } from '#domain/authenticate';
import { UnauthorizedError } from '#domain/errors';
import { MemoryApiKeyStore } from '#test-support/memory-stores';

async function storeWithKey(overrides: { rateLimit?: number; revokedAt?: string } = {}, mode: 'live' | 'test' = 'live') {
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
  });
  return { store, apiKey };
}

describe('authenticate', () => {
  it('resolves a valid key to its account with the default rate limit', async () => {
    const { store, apiKey } = await storeWithKey();
    await expect(authenticate(store, `Bearer ${apiKey}`, 60)).resolves.toEqual({
      kind: 'apiKey',
      accountId: 'acc_1',
      mode: 'live',
      keyId: keyIdFromHash(hashApiKey(apiKey)),
      rateLimit: 60,
    });
  });

  it('resolves a test key to its account\'s test scope, in test mode', async () => {
    const { store, apiKey } = await storeWithKey({}, 'test');
    expect(apiKey).toMatch(/^vg_test_[0-9A-Za-z]{40}$/);
    await expect(authenticate(store, `Bearer ${apiKey}`, 60)).resolves.toEqual({
      kind: 'apiKey',
      accountId: 'acc_1_test',
      mode: 'test',
      keyId: keyIdFromHash(hashApiKey(apiKey)),
      rateLimit: 60,
    });
  });

  it("uses the key's own rate limit when it has one", async () => {
    const { store, apiKey } = await storeWithKey({ rateLimit: 5 });
    await expect(authenticate(store, `Bearer ${apiKey}`, 60)).resolves.toMatchObject({ rateLimit: 5 });
  });

  it.each([undefined, '', 'Bearer', 'Basic dXNlcjpwYXNz', 'Bearer not-a-key', `Bearer vg_live_${'x'.repeat(10)}`])(
    'refuses %j without a lookup',
    async (header) => {
      const { store } = await storeWithKey();
      await expect(authenticate(store, header, 60)).rejects.toBeInstanceOf(UnauthorizedError);
      expect(store.lookups).toBe(0);
    },
  );

  it('refuses an unknown well-formed key', async () => {
    const { store } = await storeWithKey();
    await expect(authenticate(store, `Bearer ${generateApiKey()}`, 60)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(store.lookups).toBe(1);
  });

  it('refuses a revoked key', async () => {
    const { store, apiKey } = await storeWithKey({ revokedAt: '2026-01-02T00:00:00.000Z' });
    await expect(authenticate(store, `Bearer ${apiKey}`, 60)).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it('refuses a key whose id matches but whose full hash does not', async () => {
    const { store, apiKey } = await storeWithKey();
    const record = [...store.records.values()][0]!;
    record.keyHash = hashApiKey('something else');
    await expect(authenticate(store, `Bearer ${apiKey}`, 60)).rejects.toBeInstanceOf(UnauthorizedError);
  });
});
