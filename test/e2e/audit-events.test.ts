import type { LocalStack } from '#bin/local-stack/stack';
import { call, startTestApi, type Json } from '#test-support/local-api';
import { signedInHolder } from '#test-support/identity';

/**
 * The audit log end to end (issue 36): a signed-in holder makes, changes and revokes keys and a
 * webhook through the local gateway; GET /audit-events shows who did each, from where, as JSON
 * and as CSV. The authorizer's cache is on, as deployed.
 */
let stack: LocalStack;

beforeAll(async () => {
  stack = await startTestApi({ AUTH_CACHE_TTL_SECONDS: '300' });
});
afterAll(async () => {
  await stack.stop();
});

/** Starts like a spreadsheet formula: the CSV must defuse it, the JSON keep it as sent. */
const AGENT = '=audit-e2e/1.0';
const send = <T = Json>(token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  call<T>(stack.baseUrl, path, {
    method,
    key: token,
    headers: { 'User-Agent': AGENT, ...(body !== undefined && { 'Content-Type': 'application/json' }), ...headers },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });

describe('GET /audit-events', () => {
  it("shows who made which key and webhook, from where, newest first, paged; the key list shows who made each key; CSV carries the same page", async () => {
    const holder = await signedInHolder(stack);
    const other = await signedInHolder(stack);
    expect((await send(holder.accessToken, 'GET', '/account')).status).toBe(200);

    const made = await send(holder.accessToken, 'POST', '/keys', { name: 'CI' });
    expect(made.status).toBe(200);
    const keyId = made.body.data!.key_id as string;
    const apiKey = made.body.data!.api_key as string;
    expect(made.body.data!.created_by).toBe(holder.holderId);
    expect((await send(holder.accessToken, 'PATCH', `/keys/${keyId}`, { name: 'CI pipeline', monthly_spend_limit: 100 })).status).toBe(200);
    // A PATCH that changes nothing writes no entry.
    expect((await send(holder.accessToken, 'PATCH', `/keys/${keyId}`, { name: 'CI pipeline' })).status).toBe(200);
    const hook = await send(holder.accessToken, 'POST', '/webhooks', { url: 'http://127.0.0.1:9/hook?token=s3cret' });
    expect(hook.status).toBe(200);
    const webhookId = hook.body.data!.webhook_id as string;
    // An API key's own change is stamped with the key.
    expect((await send(apiKey, 'DELETE', `/webhooks/${webhookId}`)).status).toBe(200);
    expect((await send(holder.accessToken, 'DELETE', `/keys/${keyId}`)).status).toBe(200);
    expect((await send(holder.accessToken, 'DELETE', `/keys/${keyId}`)).status).toBe(200);

    const keys = await send(holder.accessToken, 'GET', '/keys');
    expect(keys.body.data!.keys).toEqual([expect.objectContaining({ key_id: keyId, created_by: holder.holderId })]);

    const page = await send(holder.accessToken, 'GET', '/audit-events');
    expect(page.status).toBe(200);
    const events = page.body.data!.events as Json[];
    expect(events.map((event) => [event.action, event.actor.type, event.target.id])).toEqual([
      ['key.revoked', 'holder', keyId],
      ['webhook.deleted', 'key', webhookId],
      ['webhook.created', 'holder', webhookId],
      ['key.updated', 'holder', keyId],
      ['key.created', 'holder', keyId],
    ]);
    expect(page.body.data).toMatchObject({ has_more: false, next_after: null });
    expect(events[4]).toEqual({
      id: expect.stringMatching(/^aud_[0-9A-Z]{26}$/),
      at: expect.any(String),
      actor: { type: 'holder', id: holder.holderId, email: holder.email },
      action: 'key.created',
      target: { type: 'key', id: keyId },
      ip: expect.stringMatching(/127\.0\.0\.1|::1/),
      user_agent: AGENT,
      details: { name: 'CI', mode: 'live', scopes: ['generate', 'read', 'webhooks'], expires_at: null, monthly_spend_limit: null, end_user_monthly_spend_limit: null },
    });
    expect(events[3]!.details).toEqual({ name: { from: 'CI', to: 'CI pipeline' }, monthly_spend_limit: { from: null, to: 100 }, mode: 'live' });
    expect(events[1]!.actor).toEqual({ type: 'key', id: keyId, email: null });
    expect(events[2]!.details.url).toBe('http://127.0.0.1:9/hook');
    const text = JSON.stringify(page.body);
    for (const secret of [apiKey, 's3cret', hook.body.data!.secret as string]) expect(text).not.toContain(secret);

    // Pages of two: newest first, each older than the cursor, nothing skipped or repeated.
    const first = await send(holder.accessToken, 'GET', '/audit-events?limit=2');
    expect(first.body.data).toMatchObject({ has_more: true, next_after: events[1]!.id });
    const second = await send(holder.accessToken, 'GET', `/audit-events?limit=2&after=${first.body.data!.next_after}`);
    const third = await send(holder.accessToken, 'GET', `/audit-events?limit=2&after=${second.body.data!.next_after}`);
    expect([...first.body.data!.events, ...second.body.data!.events, ...third.body.data!.events]).toEqual(events);
    expect(third.body.data).toMatchObject({ has_more: false, next_after: null });

    // CSV: the same page, the cursor in headers, caller-controlled cells defused.
    const csv = await fetch(`${stack.baseUrl}/audit-events?limit=4`, { headers: { Authorization: `Bearer ${holder.accessToken}`, Accept: 'text/csv' } });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect([csv.headers.get('vidgen-has-more'), csv.headers.get('vidgen-next-after')]).toEqual(['true', events[3]!.id]);
    const lines = (await csv.text()).split('\r\n');
    expect(lines[0]).toBe('id,at,actor_type,actor_id,actor_email,action,target_type,target_id,ip,user_agent,details');
    expect(lines).toHaveLength(6);
    expect(lines[1]!.startsWith(`${events[0]!.id},${events[0]!.at},holder,${holder.holderId},${holder.email},key.revoked,key,${keyId},`)).toBe(true);
    expect(lines[1]).toContain(`,'${AGENT},`);
    expect(lines[3]).toContain(`webhook.created,webhook,${webhookId}`);
    expect(lines[3]).toContain('""url"":""http://127.0.0.1:9/hook""');
    expect(lines[5]).toBe('');

    // Another holder's log is their own; an API key may not read a log; a bad cursor is 400 naming it.
    expect((await send(other.accessToken, 'GET', '/audit-events')).body.data).toEqual({ events: [], has_more: false, next_after: null });
    const readerKey = await send(holder.accessToken, 'POST', '/keys', { name: 'reader' });
    const refused = await send(readerKey.body.data!.api_key as string, 'GET', '/audit-events');
    expect([refused.status, refused.body.error?.code]).toEqual([403, 'forbidden']);
    const bad = await send(holder.accessToken, 'GET', '/audit-events?after=evt_123');
    expect([bad.status, bad.body.error?.code, bad.body.error?.message]).toEqual([400, 'validation_error', expect.stringContaining('after')]);
    expect((await send(holder.accessToken, 'GET', '/audit-events?limit=101')).status).toBe(400);
  });

  it('shows test credits a holder added, in the same log, marked test mode', async () => {
    const holder = await signedInHolder(stack);
    const added = await send(holder.accessToken, 'POST', '/billing/test-credits', undefined, { 'Vidgen-Mode': 'test' });
    expect(added.status).toBe(200);
    // The log is the account's, whichever mode the session reads it in.
    for (const mode of ['live', 'test']) {
      const events = (await send(holder.accessToken, 'GET', '/audit-events', undefined, { 'Vidgen-Mode': mode })).body.data!.events as Json[];
      expect(events).toEqual([
        expect.objectContaining({ action: 'credits.test_added', actor: { type: 'holder', id: holder.holderId, email: holder.email }, details: expect.objectContaining({ amount: 1000, reason: 'test credits', mode: 'test' }) }),
      ]);
    }
  });
});
