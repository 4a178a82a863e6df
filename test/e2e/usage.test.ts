import type { LocalStack } from '#bin/local-stack/stack';
import { createAccount, createApiKey } from '#domain/accounts/account-admin';
import { call, startTestApi, type Json } from '#test-support/local-api';

/**
 * GET /usage over the local gateway (issue 34): starts through two keys for two end users and
 * none, a video and an image model, one canceled (refunded); the report agrees with the ledger
 * read through GET /credits/transactions in every grouping, as JSON and as CSV; bad parameters
 * are 400s naming the field; test mode is reported apart.
 */
let stack: LocalStack;

beforeAll(async () => {
  // Jobs that finish long after the test: nothing completes or fails on its own meanwhile.
  stack = await startTestApi({ SIM_DELAY_SECONDS: '600', PROVIDER: 'simulated' });
});
afterAll(async () => {
  await stack.stop();
});

const VIDEO = { model: 'vid-1-5-pro', prompt: 'a lighthouse at dusk', duration: 5 };
const IMAGE = { prompt: 'a kite over the dunes' };
const json = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
const usage = (key: string, query = '') => call<Json>(stack.baseUrl, `/usage${query}`, { key });

/** −Σ(charges + refunds) of the whole ledger, paged through the API as a client would. */
async function ledgerNet(key: string): Promise<{ charged: number; refunded: number; charges: number }> {
  let charged = 0;
  let refunded = 0;
  let charges = 0;
  for (let page = 1; ; page += 1) {
    const reply = await call<Json>(stack.baseUrl, `/credits/transactions?page=${page}&limit=50`, { key });
    for (const entry of reply.body.data!.transactions as Json[]) {
      if (entry.type === 'charge') {
        charged -= entry.amount as number;
        charges += 1;
      }
      if (entry.type === 'refund') refunded += entry.amount as number;
    }
    if (!reply.body.data!.pagination.has_more) return { charged, refunded, charges };
  }
}

describe('GET /usage', () => {
  it('agrees with the ledger by day, model, key and end user, as JSON and CSV', async () => {
    const { account } = await createAccount(stack.context, { credits: 10_000, paidAccess: true, subscriptionStatus: 'active' });
    const first = await createApiKey(stack.context, account.accountId, { rateLimit: 1000 });
    const second = await createApiKey(stack.context, account.accountId, { rateLimit: 1000 });
    const starts = await Promise.all([
      call<Json>(stack.baseUrl, '/generate', { key: first.apiKey, ...json({ ...VIDEO, end_user: 'alice' }) }),
      call<Json>(stack.baseUrl, '/generate', { key: first.apiKey, ...json({ ...VIDEO, end_user: 'alice' }) }),
      call<Json>(stack.baseUrl, '/generate-image', { key: first.apiKey, ...json({ ...IMAGE, end_user: 'bob' }) }),
      call<Json>(stack.baseUrl, '/generate', { key: second.apiKey, ...json({ ...VIDEO, end_user: 'bob' }) }),
      call<Json>(stack.baseUrl, '/generate-image', { key: second.apiKey, ...json(IMAGE) }),
    ]);
    expect(starts.map((reply) => reply.status)).toEqual([200, 200, 200, 200, 200]);
    // Bob's video is canceled: refunded in full, counted on the day of its charge.
    expect((await call(stack.baseUrl, `/videos/${starts[3]!.body.data!.video_id}/cancel`, { key: second.apiKey, method: 'POST' })).status).toBe(200);
    const imageModel = starts[2]!.body.data!.model as string;

    const ledger = await ledgerNet(first.apiKey);
    // Three videos at 25 and two images at 5; the canceled video's 25 back.
    expect(ledger).toEqual({ charged: 85, refunded: 25, charges: 5 });
    const totals = { tasks: 5, credits_charged: 85, credits_refunded: 25, credits_net: 60 };

    const byDay = await usage(first.apiKey);
    expect(byDay.status).toBe(200);
    const { from, to, rows } = byDay.body.data!;
    const today = new Date().toISOString().slice(0, 10);
    expect([from, to, byDay.body.data!.group_by]).toEqual([`${today.slice(0, 7)}-01`, expect.stringMatching(new RegExp(`^${today.slice(0, 7)}-(28|29|30|31)$`)), 'day']);
    expect(rows).toHaveLength(Number(to.slice(8, 10)));
    expect(rows.find((row: Json) => row.group === today)).toEqual({ group: today, ...totals });
    expect(rows.filter((row: Json) => row.tasks > 0)).toHaveLength(1);
    expect(byDay.body.data!.totals).toEqual(totals);
    expect(totals).toEqual({ tasks: ledger.charges, credits_charged: ledger.charged, credits_refunded: ledger.refunded, credits_net: ledger.charged - ledger.refunded });

    const range = `from=${today}&to=${today}`;
    const [byModel, byKey, byEndUser] = await Promise.all([
      usage(first.apiKey, `?${range}&group_by=model`),
      usage(first.apiKey, `?${range}&group_by=key`),
      usage(first.apiKey, `?${range}&group_by=end_user`),
    ]);
    expect(byModel.body.data!.rows).toEqual([
      { group: 'vid-1-5-pro', tasks: 3, credits_charged: 75, credits_refunded: 25, credits_net: 50 },
      { group: imageModel, tasks: 2, credits_charged: 10, credits_refunded: 0, credits_net: 10 },
    ]);
    const [firstId, secondId] = [first.keyId, second.keyId];
    expect(byKey.body.data!.rows).toEqual([
      { group: firstId, tasks: 3, credits_charged: 55, credits_refunded: 0, credits_net: 55 },
      { group: secondId, tasks: 2, credits_charged: 30, credits_refunded: 25, credits_net: 5 },
    ]);
    expect(byEndUser.body.data!.rows).toEqual([
      { group: 'alice', tasks: 2, credits_charged: 50, credits_refunded: 0, credits_net: 50 },
      // Equal nets: by group, null last.
      { group: 'bob', tasks: 2, credits_charged: 30, credits_refunded: 25, credits_net: 5 },
      { group: null, tasks: 1, credits_charged: 5, credits_refunded: 0, credits_net: 5 },
    ]);
    for (const reply of [byModel, byKey, byEndUser]) expect(reply.body.data!.totals).toEqual(totals);

    // CSV: the rows only, CRLF, the first column named after the grouping, a null group empty.
    const csv = await fetch(`${stack.baseUrl}/usage?${range}&group_by=end_user`, { headers: { Authorization: `Bearer ${first.apiKey}`, Accept: 'text/csv' } });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="vidgen-usage-live-${today}-${today}-end_user.csv"`);
    expect(await csv.text()).toBe('end_user,tasks,credits_charged,credits_refunded,credits_net\r\nalice,2,50,0,50\r\nbob,2,30,25,5\r\n,1,5,0,5\r\n');
  });

  it('answers 400 naming the field for a bad date, range or grouping, as JSON even when CSV is asked for', async () => {
    const { account } = await createAccount(stack.context, { credits: 100 });
    const { apiKey } = await createApiKey(stack.context, account.accountId, { rateLimit: 1000 });
    const cases: Array<[string, RegExp]> = [
      ['?from=2026-02-30&to=2026-03-01', /^from: 2026-02-30 is not a calendar date/],
      ['?from=2026-1-01', /^from: must be a date as YYYY-MM-DD/],
      ['?from=2026-03-02&to=2026-03-01', /^to: 2026-03-01 is before from/],
      ['?from=2025-01-01&to=2026-01-02', /^to: at most 366 days after from/],
      ['?group_by=week', /^group_by: must be one of day, model, key, end_user/],
    ];
    for (const [query, message] of cases) {
      const reply = await usage(apiKey, query);
      expect([query, reply.status, reply.body.error?.code]).toEqual([query, 400, 'validation_error']);
      expect(reply.body.error?.message).toMatch(message);
    }
    const csv = await fetch(`${stack.baseUrl}/usage?group_by=week`, { headers: { Authorization: `Bearer ${apiKey}`, Accept: 'text/csv' } });
    expect([csv.status, ((await csv.json()) as Json).error.code]).toEqual([400, 'validation_error']);
    // 366 days, both included, is allowed.
    expect((await usage(apiKey, '?from=2024-01-01&to=2024-12-31&group_by=model')).status).toBe(200);
  });

  it('reports test mode apart from live mode', async () => {
    const { account } = await createAccount(stack.context, { credits: 1000, paidAccess: true, subscriptionStatus: 'active' });
    const live = await createApiKey(stack.context, account.accountId, { rateLimit: 1000 });
    const test = await createApiKey(stack.context, account.accountId, { rateLimit: 1000, mode: 'test' });
    expect((await call(stack.baseUrl, '/generate', { key: test.apiKey, ...json(VIDEO) })).status).toBe(200);
    expect((await usage(test.apiKey, '?group_by=key')).body.data!.rows).toEqual([{ group: test.keyId, tasks: 1, credits_charged: 25, credits_refunded: 0, credits_net: 25 }]);
    expect((await usage(live.apiKey, '?group_by=key')).body.data!).toMatchObject({ rows: [], totals: { tasks: 0, credits_charged: 0, credits_refunded: 0, credits_net: 0 } });
  });
});
