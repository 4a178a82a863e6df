import { readFileSync, statSync } from 'node:fs';
import { OPERATOR_STAMP } from '#domain/shared/audit';
import path from 'node:path';
import Stripe from 'stripe';
import { billingAccount } from '#app-context/billing';
import type { LocalStack } from '#bin/local-stack/stack';
import { createAccount } from '#domain/accounts/account-admin';
import { startCheckout, openPortal } from '#domain/billing/billing-account';
import { ledgerSum } from '#domain/accounts/ledger';
import { call, startTestApi } from '#test-support/local-api';

/**
 * Stripe's webhook over HTTP on the local stack, with the Stripe simulator: signatures (unsigned,
 * forged, stale, replayed), exactly-once purchases under 20 concurrent deliveries, ordered
 * subscription statuses, refunds, and the simulated checkout and portal pages end to end. The
 * holder's endpoints need a session, so checkout and portal URLs are made by their use case here.
 */
jest.setTimeout(120_000);

let stack: LocalStack;

beforeAll(async () => {
  stack = await startTestApi();
});
afterAll(async () => {
  await stack?.stop();
});

const simulator = () => stack.stripe!;

async function newAccount(credits = 0) {
  const { account, key } = await createAccount(stack.context, { credits });
  return { accountId: account.accountId, key: key.apiKey };
}

function checkoutEvent(accountId: string, checkoutId: string) {
  return JSON.stringify({
    id: `evt_${checkoutId}`,
    object: 'event',
    type: 'checkout.session.completed',
    created: Math.floor(Date.now() / 1000),
    data: {
      object: { id: checkoutId, object: 'checkout.session', mode: 'payment', payment_status: 'paid', client_reference_id: accountId, customer: 'cus_e2e', payment_intent: `pi_${checkoutId}`, metadata: { account_id: accountId, pack_id: 'starter', credits: '500' } },
    },
  });
}

async function balanceAndLedger(_stack: LocalStack, accountId: string) {
  const [account, entries] = await Promise.all([stack.context.accounts.get(accountId), stack.context.ledger.listForAccount(accountId)]);
  return { credits: account!.credits, ledgerSum: ledgerSum(entries), entries };
}

async function deliver(body: string, signature?: string) {
  return call<{ received: boolean; result: string }>(stack.baseUrl, '/billing/stripe-webhook', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(signature && { 'Stripe-Signature': signature }) },
    body,
  });
}

const sign = (body: string, options: { secret?: string; timestamp?: number } = {}) =>
  Stripe.webhooks.generateTestHeaderString({ payload: body, secret: options.secret ?? simulator().webhookSecret, ...(options.timestamp && { timestamp: options.timestamp }) });

describe('POST /billing/stripe-webhook', () => {
  it.each([
    ['unsigned', () => undefined],
    ['signed with another secret', (body: string) => sign(body, { secret: 'whsec_forged' })],
    ['signed more than 5 minutes ago (a stale replay)', (body: string) => sign(body, { timestamp: Math.floor(Date.now() / 1000) - 301 })],
  ])('refuses an event %s with 400 and changes nothing', async (_name, signature) => {
    const { accountId } = await newAccount();
    const body = checkoutEvent(accountId, `cs_refused_${Date.now()}`);
    const reply = await deliver(body, signature(body));
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatchObject({ code: 'validation_error', message: expect.stringContaining('Stripe-Signature') });
    expect((await balanceAndLedger(stack, accountId)).credits).toBe(0);
  });

  it('grants a pack once for 20 concurrent copies, and a replay within 5 minutes is a duplicate', async () => {
    const { accountId } = await newAccount(7);
    const body = checkoutEvent(accountId, 'cs_concurrent');
    const signature = sign(body);
    const replies = await Promise.all(Array.from({ length: 20 }, () => deliver(body, signature)));
    expect(replies.map((reply) => reply.status)).toEqual(Array(20).fill(200));
    const results = replies.map((reply) => reply.body.data?.result);
    expect(results.filter((result) => result === 'applied')).toHaveLength(1);
    expect(results.filter((result) => result === 'duplicate')).toHaveLength(19);
    const after = await balanceAndLedger(stack, accountId);
    expect(after).toMatchObject({ credits: 507, ledgerSum: 507 });
    expect(after.entries.filter((entry) => entry.kind === 'purchase')).toHaveLength(1);
    // The same bytes again, later (Stripe's retry, or someone replaying a captured delivery).
    const replay = await deliver(body, signature);
    expect(replay.body.data).toEqual({ received: true, result: 'duplicate' });
    expect((await balanceAndLedger(stack, accountId)).credits).toBe(507);
  });

  it('answers an event for an account we do not know 200 unknown_account, changing nothing', async () => {
    const body = checkoutEvent('acc_01NOSUCHACCOUNT0000000000', 'cs_nobody');
    const reply = await deliver(body, sign(body));
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({ received: true, result: 'unknown_account' });
  });

  it('ignores an event type it does not act on', async () => {
    const body = JSON.stringify({ id: 'evt_other', object: 'event', type: 'customer.created', created: 1, data: { object: { id: 'cus_1', object: 'customer' } } });
    expect((await deliver(body, sign(body))).body.data).toEqual({ received: true, result: 'ignored' });
  });
});

describe('the simulated checkout and portal', () => {
  it('a pack bought on the checkout page arrives as a purchase; a refund from the portal takes it back', async () => {
    const { accountId, key } = await newAccount();
    const url = await startCheckout(billingAccount({} as never), accountId, { packId: 'starter' }, OPERATOR_STAMP);
    expect(url.startsWith(simulator().url)).toBe(true);
    const paid = await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
    expect(paid.status).toBe(303);
    const credits = await call<{ credits: number; paid_access: boolean }>(stack.baseUrl, '/credits', { key });
    expect(credits.body.data).toMatchObject({ credits: 500, paid_access: true });
    const history = await call<{ transactions: { type: string; amount: number }[] }>(stack.baseUrl, '/credits/transactions', { key });
    expect(history.body.data?.transactions[0]).toMatchObject({ type: 'purchase', amount: 500 });

    const portal = await openPortal(billingAccount({} as never), accountId);
    const page = await (await fetch(portal)).text();
    const payment = /name="payment" value="(pi_[^"]+)"/.exec(page)?.[1];
    await fetch(`${portal}/refund`, { method: 'POST', body: new URLSearchParams({ payment: payment! }), redirect: 'manual' });
    const after = await balanceAndLedger(stack, accountId);
    expect(after).toMatchObject({ credits: 0, ledgerSum: 0 });
    expect(after.entries.map((entry) => entry.kind).sort()).toEqual(['purchase', 'reversal']);
  });

  it('the plan bought on the checkout page makes the subscription active with paid access; the portal fails and cancels it', async () => {
    const { accountId } = await newAccount();
    const url = await startCheckout(billingAccount({} as never), accountId, { plan: true }, OPERATOR_STAMP);
    await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
    expect(await stack.context.accounts.get(accountId)).toMatchObject({ subscriptionStatus: 'active', paidAccess: true });
    const portal = await openPortal(billingAccount({} as never), accountId);
    await fetch(`${portal}/fail`, { method: 'POST', redirect: 'manual' });
    expect((await stack.context.accounts.get(accountId))?.subscriptionStatus).toBe('past_due');
    // An older "active" arriving late (Stripe does not promise order) changes nothing.
    const subscription = { object: 'subscription', id: 'sub_late', customer: await stack.context.billing.customerOf(accountId), status: 'active', metadata: { account_id: accountId } };
    expect(await simulator().sendEvent('customer.subscription.updated', subscription, { created: Math.floor(Date.now() / 1000) - 60 })).toBe(200);
    expect((await stack.context.accounts.get(accountId))?.subscriptionStatus).toBe('past_due');
    await fetch(`${portal}/cancel`, { method: 'POST', redirect: 'manual' });
    expect((await stack.context.accounts.get(accountId))?.subscriptionStatus).toBe('canceled');
  });

  it('a canceled checkout changes nothing', async () => {
    const { accountId } = await newAccount();
    const url = await startCheckout(billingAccount({} as never), accountId, { packId: 'pro' }, OPERATOR_STAMP);
    const canceled = await fetch(`${url}/cancel`, { method: 'POST', redirect: 'manual' });
    expect(canceled.headers.get('location')).toContain('checkout=canceled');
    expect((await balanceAndLedger(stack, accountId)).credits).toBe(0);
  });
});

describe("the Stripe simulator's POST /simulator/events", () => {
  const tokenFile = () => path.join(stack.dataDir, 'stripe-simulator.json');
  /** The token the stack holds, read as a developer's script reads it. */
  const heldToken = () => (JSON.parse(readFileSync(tokenFile(), 'utf8')) as { url: string; eventsToken: string }).eventsToken;
  const eventFor = (accountId: string) =>
    JSON.stringify({
      type: 'checkout.session.completed',
      object: { id: `cs_sim_${accountId}`, object: 'checkout.session', mode: 'payment', payment_status: 'paid', client_reference_id: accountId, customer: 'cus_e2e', payment_intent: `pi_sim_${accountId}`, metadata: { account_id: accountId, pack_id: 'starter', credits: '1000000' } },
    });
  const post = (body: string, headers: Record<string, string>) => fetch(`${simulator().url}/simulator/events`, { method: 'POST', headers, body });

  it('signs and sends nothing without the token the stack holds, nor anything but JSON', async () => {
    const { accountId } = await newAccount();
    const body = eventFor(accountId);
    const delivered = simulator().deliveries.length;
    const refused: Array<[Record<string, string>, number]> = [
      // What any page in a browser may send cross-origin without asking first.
      [{ 'Content-Type': 'text/plain' }, 401],
      [{ 'Content-Type': 'application/json' }, 401],
      [{ 'Content-Type': 'application/json', Authorization: 'Bearer sim_guessed' }, 401],
      [{ 'Content-Type': 'text/plain', Authorization: `Bearer ${heldToken()}` }, 415],
      [{ 'Content-Type': 'application/x-www-form-urlencoded', Authorization: `Bearer ${heldToken()}` }, 415],
    ];
    for (const [headers, status] of refused) {
      const reply = await post(body, headers);
      expect({ headers, status: reply.status }).toEqual({ headers, status });
      expect(await reply.json()).toEqual({ error: { type: 'invalid_request_error', message: expect.any(String) } });
    }
    expect(simulator().deliveries.length).toBe(delivered);
    expect((await balanceAndLedger(stack, accountId)).credits).toBe(0);

    const sent = await post(body, { 'Content-Type': 'application/json', Authorization: `Bearer ${heldToken()}` });
    expect([sent.status, await sent.json()]).toEqual([200, { delivered: 200 }]);
    expect((await balanceAndLedger(stack, accountId)).credits).toBe(1_000_000);
  });

  it('keeps its token where only the stack\'s owner can read it, and refuses a body that is not an event with 400', async () => {
    expect(statSync(tokenFile()).mode & 0o777).toBe(0o600);
    expect(heldToken()).toBe(simulator().eventsToken);
    const headers = { 'Content-Type': 'application/json; charset=utf-8', Authorization: `Bearer ${heldToken()}` };
    for (const body of ['not json', '[]', '{"type": 7, "object": {}}', '{"type": "charge.refunded"}']) {
      const reply = await post(body, headers);
      expect({ body, status: reply.status }).toEqual({ body, status: 400 });
    }
  });
});
