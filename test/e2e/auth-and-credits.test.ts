import type { LocalStack } from '#bin/local-stack/stack';
import { createAccount, createApiKey, grantCredits, revokeApiKey } from '#domain/accounts/account-admin';
import { generateApiKey } from '#domain/accounts/api-key';
import { ledgerSum } from '#domain/accounts/ledger';
import { awaitRoomInWindow, call, startTestApi } from '#test-support/local-api';

let stack: LocalStack;
const CACHE_TTL_SECONDS = 4;
let stores: Pick<LocalStack['context'], 'accounts' | 'apiKeys' | 'ledger' | 'clock'>;

beforeAll(async () => {
  // A short authorizer cache, so the revocation test can watch it expire.
  stack = await startTestApi({ AUTH_CACHE_TTL_SECONDS: String(CACHE_TTL_SECONDS) });
  stores = stack.context;
});
afterAll(async () => {
  await stack.stop();
});

const UNAUTHORIZED = { data: null, error: { code: 'unauthorized', message: expect.stringContaining('API key') } };

describe('authentication', () => {
  it.each([
    ['no Authorization header', {}],
    ['an empty bearer', { Authorization: 'Bearer ' }],
    ['a Basic credential', { Authorization: 'Basic dXNlcjpwYXNz' }],
    ['a malformed key', { Authorization: 'Bearer not_a_key' }],
    ['an unknown key', { Authorization: `Bearer ${generateApiKey()}` }],
  ])('answers 401 in the envelope for %s', async (_, headers) => {
    const reply = await call(stack.baseUrl, '/credits', { headers });
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual(UNAUTHORIZED);
    expect(reply.headers.get('x-request-id')).toBeTruthy();
    expect(reply.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('stops a revoked key within one authorizer cache TTL', async () => {
    const { account } = await createAccount(stores);
    const key = await createApiKey(stores, account.accountId);
    expect((await call(stack.baseUrl, '/credits', { key: key.apiKey })).status).toBe(200);
    // The answer was cached before the reply was sent: now is no earlier than its caching.
    const cachedAt = Date.now();
    await revokeApiKey(stores, key.keyId);
    // Still cached, as API Gateway's authorizer cache would have it...
    expect((await call(stack.baseUrl, '/credits', { key: key.apiKey })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, cachedAt + CACHE_TTL_SECONDS * 1000 + 100 - Date.now()));
    // ...and refused once the cached answer expires.
    const reply = await call(stack.baseUrl, '/credits', { key: key.apiKey });
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual(UNAUTHORIZED);
  });
});

describe('GET /credits', () => {
  it("returns the demo account's balance and access flags", async () => {
    const reply = await call(stack.baseUrl, '/credits', { key: stack.demo.apiKey });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      data: { credits: 1000, paid_access: true, subscription_status: 'active' },
      error: null,
    });
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect(reply.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('reflects grants, and the balance always equals the ledger sum', async () => {
    const { account, key } = await createAccount(stores, { credits: 7 });
    await Promise.all([1, 2, 3].map((amount) => grantCredits(stores, account.accountId, amount, 'top-up')));
    const reply = await call<{ credits: number }>(stack.baseUrl, '/credits', { key: key.apiKey });
    expect(reply.body.data).toEqual({ credits: 13, paid_access: false, subscription_status: 'none' });
    expect(ledgerSum(await stores.ledger.listForAccount(account.accountId))).toBe(13);
  });

  it('gives every response its own X-Request-Id', async () => {
    const replies = await Promise.all([1, 2, 3].map(() => call(stack.baseUrl, '/credits', { key: stack.demo.apiKey })));
    const ids = new Set(replies.map((reply) => reply.headers.get('x-request-id')));
    expect(ids.size).toBe(3);
  });
});

describe('unknown routes', () => {
  it.each([
    ['GET', '/nope'],
    ['POST', '/credits'],
    ['GET', '/credits/extra'],
    ['DELETE', '/credits'],
  ])('%s %s is 404 not_found in the envelope, key or no key', async (method, pathname) => {
    for (const key of [undefined, stack.demo.apiKey]) {
      const reply = await call(stack.baseUrl, pathname, { method, ...(key && { key }) });
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual({ data: null, error: { code: 'not_found', message: expect.any(String) } });
      expect(reply.headers.get('x-request-id')).toBeTruthy();
    }
  });
});

describe('rate limit', () => {
  it('admits exactly N of N+5 concurrent requests, with headers on every answer', async () => {
    const { account } = await createAccount(stores);
    const limit = 12;
    const key = await createApiKey(stores, account.accountId, { rateLimit: limit });
    await awaitRoomInWindow(10);
    const replies = await Promise.all(
      Array.from({ length: limit + 5 }, () => call(stack.baseUrl, '/credits', { key: key.apiKey })),
    );
    const ok = replies.filter((reply) => reply.status === 200);
    const refused = replies.filter((reply) => reply.status === 429);
    expect(ok).toHaveLength(limit);
    expect(refused).toHaveLength(5);
    expect(ok.map((reply) => Number(reply.headers.get('x-ratelimit-remaining'))).sort((a, b) => a - b)).toEqual(
      Array.from({ length: limit }, (_, i) => i),
    );
    const resetAt = Math.ceil(Date.now() / 60_000) * 60;
    for (const reply of refused) {
      expect(reply.body).toEqual({ data: null, error: { code: 'rate_limit_exceeded', message: expect.any(String) } });
      expect(reply.headers.get('x-ratelimit-limit')).toBe(String(limit));
      expect(reply.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number(reply.headers.get('x-ratelimit-reset'))).toBe(resetAt);
      const retryAfter = Number(reply.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
    }
  });

  it('gives the 61st request in a minute a 429 under the default limit of 60', async () => {
    const { key } = await createAccount(stores);
    await awaitRoomInWindow(15);
    const replies = await Promise.all(
      Array.from({ length: 61 }, () => call(stack.baseUrl, '/credits', { key: key.apiKey })),
    );
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(60);
    const [refused] = replies.filter((reply) => reply.status === 429);
    expect(refused?.headers.get('x-ratelimit-limit')).toBe('60');
    expect(refused?.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(refused?.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('counts each key on its own', async () => {
    const { account, key } = await createAccount(stores);
    const other = await createApiKey(stores, account.accountId, { rateLimit: 1 });
    await awaitRoomInWindow(5);
    expect((await call(stack.baseUrl, '/credits', { key: other.apiKey })).status).toBe(200);
    expect((await call(stack.baseUrl, '/credits', { key: other.apiKey })).status).toBe(429);
    const reply = await call(stack.baseUrl, '/credits', { key: key.apiKey });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-ratelimit-remaining')).toBe('59');
  });
});
