import { buildAppContext, type AppContext } from '#app-context';
import { accessChangeAudit } from '#domain/accounts/account-admin';
import { OPERATOR_STAMP, type AuditStamp } from '#domain/shared/audit';
import { buildBilling } from '#app-context/billing';
import { parseCheckout } from '#contract/billing';
import { createAccount } from '#domain/accounts/account-admin';
import { addTestCredits, endTestSubscription, getBilling, openPortal, startCheckout, startTestSubscription, type BillingDeps } from '#domain/billing/billing-account';
import { ValidationError } from '#domain/shared/errors';
import { ledgerSum } from '#domain/accounts/ledger';
import { partitionOf } from '#domain/shared/partition';
import { startStripeSimulator, type StripeSimulator } from '#bin/local-stack/stripe-simulator';
import { createTestDb, dropTestDb, testConfig } from '#test-support/test-db';

/** The holder's billing use cases on DynamoDB Local and the Stripe simulator (the session routes' logic). */

let ctx: AppContext;
let simulator: StripeSimulator;
let deps: BillingDeps;

beforeAll(async () => {
  const db = await createTestDb();
  ctx = buildAppContext(testConfig(db.tableName));
  db.doc.destroy();
  simulator = await startStripeSimulator({ webhookSecret: 'whsec_checkout', prices: { price_starter: { amount: 500, currency: 'usd' }, price_plan: { amount: 2000, currency: 'usd' } } });
  const parts = buildBilling(
    {
      catalogue: {
        packs: [{ packId: 'starter', priceId: 'price_starter', credits: 500, amount: 500, currency: 'usd' }],
        plan: { priceId: 'price_plan', amount: 2000, currency: 'usd', interval: 'month' },
      },
      stripeApiBase: simulator.url,
      secretKey: { value: 'sk_test_checkout' },
      webhookSecret: { value: 'whsec_checkout' },
    },
    ctx,
    async () => {
      throw new Error('no Secrets Manager here');
    },
  );
  deps = { ...parts.account, returnUrl: 'http://127.0.0.1:1/console/billing' };
});

afterAll(async () => {
  await simulator.stop();
  await dropTestDb(ctx.db);
});

async function accountId(): Promise<string> {
  return (await createAccount(ctx)).account.accountId;
}

async function validationError(promise: Promise<unknown>): Promise<ValidationError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ValidationError);
  return error as ValidationError;
}

describe('checkout', () => {
  it('refuses an unknown pack with a 400 naming pack_id and the packs there are, before calling Stripe', async () => {
    simulator.requests.length = 0;
    const error = await validationError(startCheckout(deps, await accountId(), { packId: 'huge' }, OPERATOR_STAMP));
    expect(error.field).toBe('pack_id');
    expect(error.message).toBe('pack_id: no pack "huge" (packs: "starter").');
    expect(simulator.requests).toEqual([]);
  });

  it('refuses test mode with a 400 (purchases are live only)', async () => {
    const error = await validationError(startCheckout(deps, partitionOf(await accountId(), 'test'), { packId: 'starter' }, OPERATOR_STAMP));
    expect(error.field).toBe('Vidgen-Mode');
  });

  it('refuses the plan to an account that already subscribes', async () => {
    const id = await accountId();
    await ctx.accounts.updateAccess(id, { subscriptionStatus: 'active' }, new Date().toISOString(), accessChangeAudit(OPERATOR_STAMP, new Date()));
    expect((await validationError(startCheckout(deps, id, { plan: true }, OPERATOR_STAMP))).field).toBe('plan');
  });

  it('makes the account one Stripe customer, shared by concurrent checkouts and the portal', async () => {
    const id = await accountId();
    const urls = await Promise.all([startCheckout(deps, id, { packId: 'starter' }, OPERATOR_STAMP), startCheckout(deps, id, { plan: true }, OPERATOR_STAMP), openPortal(deps, id)]);
    expect(urls.every((url) => url.startsWith(simulator.url))).toBe(true);
    const customer = await ctx.billing.customerOf(id);
    expect(customer).toMatch(/^cus_/);
    expect(await ctx.billing.accountOfCustomer(customer!)).toBe(id);
    // Issue 36: each checkout handed out has its entry; a refused one (above) has none.
    const started = (await ctx.auditLog.page(id, undefined, 10)).entries.filter((entry) => entry.action === 'billing.checkout_started');
    expect(started.map((entry) => entry.details).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual([{ pack_id: 'starter', credits: 500 }, { plan: true }]);
  });

  it.each([
    [{}, 'pack_id'],
    [{ pack_id: 'starter', plan: true }, 'pack_id'],
    [{ plan: false }, 'plan'],
    [{ pack_id: 7 }, 'pack_id'],
  ])('reads %j as a 400 naming %s', (body, field) => {
    let caught: unknown;
    try {
      parseCheckout(body);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeDefined();
    const named = caught instanceof ValidationError ? caught.field : (caught as { issues: { path: string[] }[] }).issues[0]?.path[0];
    expect(named).toBe(field);
  });
});

describe('GET /billing', () => {
  it('lists the packs and the plan with the account standing, in either mode', async () => {
    const id = await accountId();
    const live = await getBilling(deps, id);
    expect(live.packs.map((pack) => pack.packId)).toEqual(['starter']);
    expect(live.plan?.interval).toBe('month');
    expect(live.account).toMatchObject({ subscriptionStatus: 'none', paidAccess: false });
    expect((await getBilling(deps, partitionOf(id, 'test'))).account.credits).toBe(1000);
  });

  it("lists the subscription's payments in live mode, none in test mode", async () => {
    const id = await accountId();
    expect((await getBilling(deps, id)).subscriptionPayments).toEqual([]);
    const payment = { invoiceId: `in_${id}`, accountId: id, amount: 2000, currency: 'usd', paidAt: '2026-11-02T09:14:05.000Z' };
    await ctx.billing.recordSubscriptionPayment(payment);
    expect((await getBilling(deps, id)).subscriptionPayments).toEqual([payment]);
    expect((await getBilling(deps, partitionOf(id, 'test'))).subscriptionPayments).toEqual([]);
  });
});

describe('the test subscription', () => {
  it('opens the test balance on first use, and races of starts and ends settle on one answer', async () => {
    const id = await accountId();
    const scope = partitionOf(id, 'test');
    const started = await Promise.all(Array.from({ length: 6 }, () => startTestSubscription(deps, scope)));
    expect(started.map((account) => [account.credits, account.paidAccess, account.subscriptionStatus])).toEqual(Array(6).fill([1000, true, 'active']));
    expect((await getBilling(deps, scope)).account).toMatchObject({ paidAccess: true, subscriptionStatus: 'active' });
    expect((await getBilling(deps, id)).account).toMatchObject({ paidAccess: false, subscriptionStatus: 'none' });
    const ended = await Promise.all(Array.from({ length: 6 }, () => endTestSubscription(deps, scope)));
    expect(ended.map((account) => [account.paidAccess, account.subscriptionStatus])).toEqual(Array(6).fill([false, 'canceled']));
    // The opening grant is the test ledger's only entry: nothing else was written twice.
    expect((await ctx.ledger.listForAccount(scope)).map((entry) => entry.amount)).toEqual([1000]);
  });

  it('is refused in live mode with a 400', async () => {
    const id = await accountId();
    expect((await validationError(startTestSubscription(deps, id))).field).toBe('Vidgen-Mode');
    expect((await validationError(endTestSubscription(deps, id))).field).toBe('Vidgen-Mode');
  });
});

describe('test credits', () => {
  it('add 1000 to the test balance as a grant, ledger = balance', async () => {
    const id = await accountId();
    const scope = partitionOf(id, 'test');
    const stamp: AuditStamp = { actor: { type: 'holder', id: 'holder-1', email: 'a@example.com' }, origin: { ip: '127.0.0.1', userAgent: 'jest' } };
    expect((await addTestCredits(deps, scope, stamp)).credits).toBe(2000);
    // Issue 36: audited on the account's one log, marked test mode.
    expect((await ctx.auditLog.page(id, undefined, 10)).entries.filter((entry) => entry.action === 'credits.test_added')).toEqual([
      expect.objectContaining({ actor: stamp.actor, target: { type: 'account', id }, details: expect.objectContaining({ amount: 1000, mode: 'test' }) }),
    ]);
    const entries = await ctx.ledger.listForAccount(scope);
    expect(ledgerSum(entries)).toBe(2000);
    expect(entries.filter((entry) => entry.reason === 'test credits')).toEqual([expect.objectContaining({ kind: 'grant', amount: 1000 })]);
    expect((await ctx.accounts.get(id))?.credits).toBe(0);
  });

  it('are refused in live mode with a 400', async () => {
    expect((await validationError(addTestCredits(deps, await accountId(), OPERATOR_STAMP))).field).toBe('Vidgen-Mode');
  });
});
