import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { apiKeyKey } from '#adapters/dynamodb/keys';
import type { LocalStack } from '#bin/local-stack/stack';
import { createAccount, createApiKey } from '#domain/accounts/account-admin';
import { KEY_EXPIRED_MESSAGE } from '#domain/shared/errors';
import { ledgerSum } from '#domain/accounts/ledger';
import { awaitRoomInWindow, call, startTestApi } from '#test-support/local-api';

/** Scopes, expiry and monthly spend limits of API keys, over real HTTP on the local stack. */
let stack: LocalStack;
let stores: Pick<LocalStack['context'], 'accounts' | 'apiKeys' | 'ledger' | 'clock'>;

beforeAll(async () => {
  // Jobs that finish long after the test: no output is rendered while the starts race.
  stack = await startTestApi({ SIM_DELAY_SECONDS: '600', PROVIDER: 'simulated' });
  stores = stack.context;
});
afterAll(async () => {
  await stack.stop();
});

const VIDEO = { model: 'vid-1-5-pro', prompt: 'a lighthouse at dusk', duration: 5 };
const json = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

async function keyFor(options: Parameters<typeof createApiKey>[2], credits = 10_000) {
  const { account } = await createAccount(stores, { credits, paidAccess: true, subscriptionStatus: 'active' });
  const key = await createApiKey(stores, account.accountId, { rateLimit: 1000, ...options });
  return { accountId: account.accountId, ...key };
}

describe('a monthly spend limit', () => {
  it('lets exactly 10 of 50 concurrent starts through a key whose limit allows 10, and refuses 40 with spend_limit_exceeded', async () => {
    // 5 s of vid-1-5-pro costs 25: a limit of 250 allows exactly 10.
    const key = await keyFor({ monthlySpendLimit: 250 });
    await awaitRoomInWindow(20);
    const replies = await Promise.all(Array.from({ length: 50 }, () => call(stack.baseUrl, '/generate', { key: key.apiKey, ...json(VIDEO) })));
    const statuses = replies.map((reply) => reply.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    const refused = replies.filter((reply) => reply.status !== 200);
    expect(refused).toHaveLength(40);
    expect(new Set(refused.map((reply) => `${reply.status} ${reply.body.error?.code}`))).toEqual(new Set(['403 spend_limit_exceeded']));
    expect(refused[0]!.body.error?.message).toContain("this API key's monthly spend limit is 250 credits");
    const account = await stores.accounts.get(key.accountId);
    const entries = await stores.ledger.listForAccount(key.accountId);
    expect(account?.credits).toBe(10_000 - 250);
    expect(ledgerSum(entries)).toBe(10_000 - 250);
    expect(entries.filter((entry) => entry.kind === 'charge')).toHaveLength(10);
    // A refund (a cancel) gives the room back: one more start goes through, then none.
    const started = replies.find((reply) => reply.status === 200)!.body.data as { video_id: string };
    expect((await call(stack.baseUrl, `/videos/${started.video_id}/cancel`, { key: key.apiKey, method: 'POST' })).status).toBe(200);
    expect((await call(stack.baseUrl, '/generate', { key: key.apiKey, ...json(VIDEO) })).status).toBe(200);
    expect((await call(stack.baseUrl, '/generate', { key: key.apiKey, ...json(VIDEO) })).body.error?.code).toBe('spend_limit_exceeded');
  });

  it('does not limit another key of the same account', async () => {
    const limited = await keyFor({ monthlySpendLimit: 10 });
    const other = await createApiKey(stores, limited.accountId);
    expect((await call(stack.baseUrl, '/generate', { key: limited.apiKey, ...json(VIDEO) })).body.error?.code).toBe('spend_limit_exceeded');
    expect((await call(stack.baseUrl, '/generate', { key: other.apiKey, ...json(VIDEO) })).status).toBe(200);
  });
});

describe('a limit per end user', () => {
  const forUser = (apiKey: string, endUser?: string) =>
    call(stack.baseUrl, '/generate', { key: apiKey, ...json({ ...VIDEO, ...(endUser !== undefined && { end_user: endUser }) }) });
  const balanceIsLedger = async (accountId: string) => {
    const [account, entries] = await Promise.all([stores.accounts.get(accountId), stores.ledger.listForAccount(accountId)]);
    expect(ledgerSum(entries)).toBe(account!.credits);
    return account!.credits;
  };

  it("lets exactly the allowed number of 50 concurrent starts for one end user through, while another end user goes on; a refund gives the room back", async () => {
    // 25 credits a start; alice has 50 of her 100 spent: exactly 2 more fit.
    const key = await keyFor({ endUserMonthlySpendLimit: 100 });
    for (let i = 0; i < 2; i += 1) expect((await forUser(key.apiKey, 'alice')).status).toBe(200);
    await awaitRoomInWindow(20);
    const [alice, bob] = await Promise.all([
      Promise.all(Array.from({ length: 50 }, () => forUser(key.apiKey, 'alice'))),
      Promise.all(Array.from({ length: 3 }, () => forUser(key.apiKey, 'bob'))),
    ]);
    expect(alice.filter((reply) => reply.status === 200)).toHaveLength(2);
    const refused = alice.filter((reply) => reply.status !== 200);
    expect(new Set(refused.map((reply) => `${reply.status} ${reply.body.error?.code}`))).toEqual(new Set(['403 spend_limit_exceeded']));
    expect(refused).toHaveLength(48);
    expect(refused[0]!.body.error?.message).toContain('this API key allows each end user 100 credits a month (end_user_monthly_spend_limit) and end user "alice" has 0 left this month');
    expect(bob.map((reply) => reply.status)).toEqual([200, 200, 200]);
    expect(bob.map((reply) => (reply.body.data as { end_user: string }).end_user)).toEqual(['bob', 'bob', 'bob']);
    expect(await balanceIsLedger(key.accountId)).toBe(10_000 - 7 * 25);
    const charges = (await stores.ledger.listForAccount(key.accountId)).filter((entry) => entry.kind === 'charge');
    expect(charges).toHaveLength(7);

    // A start that names no end user: 400 naming end_user, nothing charged.
    const anonymous = await forUser(key.apiKey);
    expect([anonymous.status, anonymous.body.error?.code]).toEqual([400, 'validation_error']);
    expect(anonymous.body.error?.message).toMatch(/^end_user: this API key has an end_user_monthly_spend_limit/);
    const quoted = await call(stack.baseUrl, '/quote', { key: key.apiKey, ...json({ kind: 'video', ...VIDEO }) });
    expect([quoted.status, quoted.body.error?.message]).toEqual([400, anonymous.body.error?.message]);

    // A refund (a cancel) gives alice's room back: exactly one more start, then none.
    const started = alice.find((reply) => reply.status === 200)!.body.data as { video_id: string };
    expect((await call(stack.baseUrl, `/videos/${started.video_id}/cancel`, { key: key.apiKey, method: 'POST' })).status).toBe(200);
    expect((await forUser(key.apiKey, 'alice')).status).toBe(200);
    expect((await forUser(key.apiKey, 'alice')).body.error?.code).toBe('spend_limit_exceeded');
    expect(await balanceIsLedger(key.accountId)).toBe(10_000 - 7 * 25);
  }, 90_000);

  it("names the key's own limit when both limits would be passed", async () => {
    const key = await keyFor({ monthlySpendLimit: 140, endUserMonthlySpendLimit: 50 });
    for (const endUser of ['alice', 'alice', 'bob', 'bob', 'carol']) expect((await forUser(key.apiKey, endUser)).status).toBe(200);
    // alice's third passes both her 50 and the key's 140: the key's limit is named.
    const third = await forUser(key.apiKey, 'alice');
    expect(third.body.error?.code).toBe('spend_limit_exceeded');
    expect(third.body.error?.message).toContain("this API key's monthly spend limit is 140 credits and it has 15 left this month");
    expect(await balanceIsLedger(key.accountId)).toBe(10_000 - 125);
    const listed = (await stores.apiKeys.get(key.keyId))!;
    expect(listed).toMatchObject({ monthlySpendLimit: 140, endUserMonthlySpendLimit: 50 });
  });
});

describe('scopes', () => {
  it('refuses a request outside the key\'s scopes with 403 forbidden naming the scope, and serves the rest', async () => {
    const key = await keyFor({ scopes: ['generate', 'read'] });
    const webhooks = await call(stack.baseUrl, '/webhooks', { key: key.apiKey });
    expect(webhooks.status).toBe(403);
    expect(webhooks.body).toEqual({ data: null, error: { code: 'forbidden', message: 'This API key does not have the "webhooks" scope this endpoint needs.' } });
    expect(webhooks.headers.get('x-ratelimit-limit')).toBe('1000');
    expect((await call(stack.baseUrl, '/credits', { key: key.apiKey })).status).toBe(200);
    const reader = await keyFor({ scopes: ['read'] });
    const start = await call(stack.baseUrl, '/generate', { key: reader.apiKey, ...json(VIDEO) });
    expect([start.status, start.body.error?.message]).toEqual([403, 'This API key does not have the "generate" scope this endpoint needs.']);
    expect((await stores.accounts.get(reader.accountId))?.credits).toBe(10_000);
  });

  it('refuses an API key on the key endpoints (for signed-in account holders only) with 403 forbidden', async () => {
    const key = await keyFor({});
    for (const [path, init] of [
      ['/keys', {}],
      ['/keys', json({ name: 'mine' })],
      [`/keys/${key.keyId}`, { method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: '{"name":"x"}' }],
      [`/keys/${key.keyId}`, { method: 'DELETE' }],
    ] as const) {
      const reply = await call(stack.baseUrl, path, { key: key.apiKey, ...init });
      expect([path, reply.status, reply.body.error?.code]).toEqual([path, 403, 'forbidden']);
    }
    expect((await stores.apiKeys.get(key.keyId))?.revokedAt).toBeUndefined();
    // The account's operator key and this one: nothing made through an API key.
    expect(await stores.apiKeys.listForAccount(key.accountId)).toHaveLength(2);
  });
});

describe('expiry', () => {
  it('answers an expired key 401 unauthorized saying it expired', async () => {
    const { account } = await createAccount(stores);
    const key = await createApiKey(stores, account.accountId, { expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    // Its hour passed (as an operator could edit the table); the key was never used, so nothing is cached.
    await stack.context.db.doc.send(
      new UpdateCommand({
        TableName: stack.context.db.tableName,
        Key: apiKeyKey(key.keyId),
        UpdateExpression: 'SET key_expires_at = :past',
        ExpressionAttributeValues: { ':past': new Date(Date.now() - 1000).toISOString() },
      }),
    );
    const reply = await call(stack.baseUrl, '/credits', { key: key.apiKey });
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ data: null, error: { code: 'unauthorized', message: KEY_EXPIRED_MESSAGE } });
    expect(reply.headers.get('x-ratelimit-limit')).toBeNull();
  });
});
