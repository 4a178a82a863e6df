import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoAuditLog } from '#adapters/dynamodb/audit/audit-put';
import { DynamoAccountStore } from '#adapters/dynamodb/account-repository';
import { DynamoBillingStore } from '#adapters/dynamodb/billing-repository';
import type { Db } from '#adapters/dynamodb/dynamo-client';
import { DynamoLedgerStore } from '#adapters/dynamodb/ledger-repository';
import { createAccount } from '#domain/accounts/account-admin';
import { DynamoApiKeyStore } from '#adapters/dynamodb/api-key-repository';
import type { BillingEvent, BillingCatalogue } from '#domain/billing/billing';
import { applyBillingEvent, type BillingEventDeps } from '#domain/billing/billing-events';
import { NotFoundError } from '#domain/shared/errors';
import { ledgerSum } from '#domain/accounts/ledger';
import type { Telemetry } from '#domain/shared/telemetry';
import { createTestDb, dropTestDb } from '#test-support/test-db';

/** The webhook's rules on DynamoDB Local: exactly-once grants, ordered statuses, reversals never below zero. */

const CATALOGUE: BillingCatalogue = { packs: [{ packId: 'starter', priceId: 'price_starter', credits: 500, amount: 500, currency: 'usd' }] };

let db: Db;
let accounts: DynamoAccountStore;
let ledger: DynamoLedgerStore;
let billing: DynamoBillingStore;
let counted: { event: string; value: number }[];
let warnings: string[];
let deps: BillingEventDeps;

beforeAll(async () => {
  db = await createTestDb();
  accounts = new DynamoAccountStore(db);
  ledger = new DynamoLedgerStore(db);
  billing = new DynamoBillingStore(db);
});

afterAll(async () => {
  await dropTestDb(db);
});

beforeEach(() => {
  counted = [];
  warnings = [];
  const telemetry: Telemetry = {
    info: () => undefined,
    warn: (message) => warnings.push(message),
    error: () => undefined,
    count: (event, options) => counted.push({ event, value: options?.value ?? 1 }),
    providerLatency: () => undefined,
  };
  deps = { gateway: { readEvent: async () => ({ type: 'ignored', eventId: 'evt_x', eventType: 'x' }) }, billing, catalogue: CATALOGUE, telemetry, clock: () => new Date() };
});

async function newAccount(credits = 0): Promise<string> {
  const { account } = await createAccount({ accounts, apiKeys: new DynamoApiKeyStore(db), ledger, clock: () => new Date() }, { credits });
  return account.accountId;
}

let sequence = 0;
function packPaid(accountId: string, checkoutId = `cs_${(sequence += 1)}`, paymentId = `pi_${sequence}`): BillingEvent {
  return { type: 'checkout_paid', eventId: `evt_${checkoutId}`, checkoutId, accountId, customerId: 'cus_1', purchase: { packId: 'starter', credits: 500, paymentId } };
}

/** The account's audit entries of one action, newest first. */
async function auditOf(accountId: string, action: string) {
  return (await new DynamoAuditLog(db).page(accountId, undefined, 100)).entries.filter((entry) => entry.action === action);
}

async function balanceAndLedger(accountId: string) {
  const account = await accounts.get(accountId);
  const entries = await ledger.listForAccount(accountId);
  return { credits: account?.credits, paidAccess: account?.paidAccess, sum: ledgerSum(entries), entries };
}

describe('a paid checkout for a pack', () => {
  it('grants the credits once for 20 concurrent copies: one purchase entry, ledger sum = balance, paid access on', async () => {
    const accountId = await newAccount(100);
    const event = packPaid(accountId);
    const results = await Promise.all(Array.from({ length: 20 }, () => applyBillingEvent(deps, event)));
    expect(results.filter((result) => result === 'applied')).toHaveLength(1);
    expect(results.filter((result) => result === 'duplicate')).toHaveLength(19);
    const after = await balanceAndLedger(accountId);
    expect(after).toMatchObject({ credits: 600, sum: 600, paidAccess: true });
    expect(after.entries.filter((entry) => entry.kind === 'purchase')).toEqual([
      expect.objectContaining({ amount: 500, reason: 'purchase: starter pack' }),
    ]);
    // Issue 36: one entry, Stripe's (by its event), in the purchase's own transaction; the duplicates wrote none.
    expect(await auditOf(accountId, 'billing.purchase_credited')).toEqual([
      expect.objectContaining({ actor: { type: 'stripe', id: event.eventId, email: null }, target: { type: 'checkout', id: (event as { checkoutId: string }).checkoutId }, details: expect.objectContaining({ credits: 500, pack_id: 'starter' }) }),
    ]);
  });

  it('for an account we do not know changes nothing and says so', async () => {
    expect(await applyBillingEvent(deps, packPaid('acc_01NOSUCHACCOUNT0000000000'))).toBe('unknown_account');
  });

  it('for a pack neither the event nor the catalogue prices grants nothing', async () => {
    const accountId = await newAccount();
    const event: BillingEvent = { type: 'checkout_paid', eventId: 'evt_unknown_pack', checkoutId: 'cs_unknown_pack', accountId, purchase: { packId: 'gone' } };
    expect(await applyBillingEvent(deps, event)).toBe('ignored');
    expect((await balanceAndLedger(accountId)).credits).toBe(0);
  });
});

describe('subscription events', () => {
  const changed = (accountId: string, providerStatus: string, occurredAt: number): BillingEvent => ({
    type: 'subscription_changed',
    eventId: `evt_${providerStatus}_${occurredAt}`,
    accountId,
    providerStatus,
    occurredAt,
  });

  it('never roll a newer status back: past_due, then an older active, stays past_due', async () => {
    const accountId = await newAccount();
    expect(await applyBillingEvent(deps, changed(accountId, 'active', 100))).toBe('applied');
    expect(await applyBillingEvent(deps, changed(accountId, 'past_due', 300))).toBe('applied');
    expect(await applyBillingEvent(deps, changed(accountId, 'active', 200))).toBe('stale');
    expect((await accounts.get(accountId))?.subscriptionStatus).toBe('past_due');
    expect(await applyBillingEvent(deps, changed(accountId, 'active', 400))).toBe('applied');
    expect((await accounts.get(accountId))?.subscriptionStatus).toBe('active');
    // One entry per applied change, none for the stale one.
    expect((await auditOf(accountId, 'billing.subscription_changed')).map((entry) => entry.actor.id)).toEqual(['evt_active_400', 'evt_past_due_300', 'evt_active_100']);
  });

  it('map the provider statuses (trialing is active, unpaid past_due, incomplete_expired canceled; incomplete changes nothing)', async () => {
    const accountId = await newAccount();
    await applyBillingEvent(deps, changed(accountId, 'trialing', 10));
    expect((await accounts.get(accountId))?.subscriptionStatus).toBe('active');
    await applyBillingEvent(deps, changed(accountId, 'unpaid', 20));
    expect((await accounts.get(accountId))?.subscriptionStatus).toBe('past_due');
    expect(await applyBillingEvent(deps, changed(accountId, 'incomplete', 30))).toBe('ignored');
    await applyBillingEvent(deps, changed(accountId, 'incomplete_expired', 40));
    expect((await accounts.get(accountId))?.subscriptionStatus).toBe('canceled');
  });

  it('of the same second: the one further along wins whichever arrives first, and a duplicate is stale', async () => {
    const accountId = await newAccount();
    await applyBillingEvent(deps, changed(accountId, 'canceled', 50));
    expect(await applyBillingEvent(deps, changed(accountId, 'active', 50))).toBe('stale');
    expect(await applyBillingEvent(deps, changed(accountId, 'canceled', 50))).toBe('stale');
    expect((await accounts.get(accountId))?.subscriptionStatus).toBe('canceled');
  });

  it('find their account through its customer, and answer unknown_account for a customer we never made', async () => {
    const accountId = await newAccount();
    await billing.attachCustomer(accountId, 'cus_sub_lookup', new Date().toISOString());
    const event: BillingEvent = { type: 'subscription_changed', eventId: 'evt_c', customerId: 'cus_sub_lookup', providerStatus: 'active', occurredAt: 5 };
    expect(await applyBillingEvent(deps, event)).toBe('applied');
    expect((await accounts.get(accountId))?.subscriptionStatus).toBe('active');
    expect(await applyBillingEvent(deps, { ...event, customerId: 'cus_nobody' })).toBe('unknown_account');
    expect(await applyBillingEvent(deps, { type: 'payment_succeeded', eventId: 'evt_p', customerId: 'cus_nobody' })).toBe('unknown_account');
  });

  it('a successful invoice turns paid access on', async () => {
    const accountId = await newAccount();
    await billing.attachCustomer(accountId, 'cus_invoice', new Date().toISOString());
    expect(await applyBillingEvent(deps, { type: 'payment_succeeded', eventId: 'evt_inv', customerId: 'cus_invoice' })).toBe('applied');
    expect((await accounts.get(accountId))?.paidAccess).toBe(true);
  });

  it("lists each paid invoice once, newest first, however many of its events arrive (a free trial's invoice is no payment)", async () => {
    const accountId = await newAccount();
    const customerId = `cus_${accountId}`;
    await billing.attachCustomer(accountId, customerId, new Date().toISOString());
    const paid = (eventId: string, invoiceId: string, amount: number, paidAt: number): BillingEvent => ({
      type: 'payment_succeeded',
      eventId,
      customerId,
      payment: { invoiceId, amount, currency: 'usd', paidAt },
    });
    const first = paid('evt_a', `in_a_${accountId}`, 2000, 1_800_000_000);
    // Stripe sends invoice.paid and invoice.payment_succeeded for one invoice, in any order, maybe at once.
    const answers = await Promise.all([first, { ...first, eventId: 'evt_a2' }, first].map((event) => applyBillingEvent(deps, event)));
    expect(answers.sort()).toEqual(['applied', 'duplicate', 'duplicate']);
    expect(await applyBillingEvent(deps, paid('evt_trial', `in_trial_${accountId}`, 0, 1_799_000_000))).toBe('applied');
    expect(await applyBillingEvent(deps, paid('evt_b', `in_b_${accountId}`, 2000, 1_802_600_000))).toBe('applied');
    expect(await billing.listSubscriptionPayments(accountId, 10)).toEqual([
      { invoiceId: `in_b_${accountId}`, accountId, amount: 2000, currency: 'usd', paidAt: new Date(1_802_600_000_000).toISOString() },
      { invoiceId: `in_a_${accountId}`, accountId, amount: 2000, currency: 'usd', paidAt: new Date(1_800_000_000_000).toISOString() },
    ]);
    expect(await billing.listSubscriptionPayments(accountId, 1)).toHaveLength(1);
    // Credits are not what a subscription pays for: the ledger is untouched.
    expect((await balanceAndLedger(accountId)).entries).toHaveLength(0);
  });
});

describe('refunds and disputes', () => {
  const reversed = (paymentId: string, reason: 'refund' | 'dispute', fraction = 1): BillingEvent => ({
    type: 'payment_reversed',
    eventId: `evt_${reason}_${paymentId}_${fraction}`,
    paymentId,
    reason,
    fraction,
  });

  it('take the pack back with a reversal entry, once however often the refund is delivered', async () => {
    const accountId = await newAccount(50);
    await applyBillingEvent(deps, packPaid(accountId, 'cs_refund', 'pi_refund'));
    const results = await Promise.all(Array.from({ length: 5 }, () => applyBillingEvent(deps, reversed('pi_refund', 'refund'))));
    expect(results.filter((result) => result === 'applied')).toHaveLength(1);
    const after = await balanceAndLedger(accountId);
    expect(after).toMatchObject({ credits: 50, sum: 50 });
    expect(after.entries.filter((entry) => entry.kind === 'reversal')).toEqual([expect.objectContaining({ amount: -500, reason: 'reversal: refunded starter pack' })]);
    expect(counted).toEqual([]);
  });

  it('never go below zero: the shortfall is logged and counted', async () => {
    const accountId = await newAccount();
    await applyBillingEvent(deps, packPaid(accountId, 'cs_spent', 'pi_spent'));
    // Most of it spent (as starts would: only the balance matters here).
    await db.doc.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: { pk: `ACCOUNT#${accountId}`, sk: 'ACCOUNT' },
        UpdateExpression: 'SET credits = :c',
        ExpressionAttributeValues: { ':c': 120 },
      }),
    );
    expect(await applyBillingEvent(deps, reversed('pi_spent', 'dispute'))).toBe('applied');
    const after = await balanceAndLedger(accountId);
    expect(after.credits).toBe(0);
    expect(after.entries.filter((entry) => entry.kind === 'reversal')).toEqual([expect.objectContaining({ amount: -120 })]);
    expect(counted).toEqual([{ event: 'ReversalShortfall', value: 380 }]);
    expect(warnings).toContain('Reversal short: the balance had fewer credits than the pack gave');
    // A dispute after the full claim takes nothing more, and the shortfall is not counted twice.
    expect(await applyBillingEvent(deps, reversed('pi_spent', 'dispute'))).toBe('duplicate');
    expect(counted).toHaveLength(1);
  });

  it('a partial refund takes its share; a later dispute takes the rest', async () => {
    const accountId = await newAccount();
    await applyBillingEvent(deps, packPaid(accountId, 'cs_partial', 'pi_partial'));
    await applyBillingEvent(deps, reversed('pi_partial', 'refund', 0.25));
    expect((await accounts.get(accountId))?.credits).toBe(375);
    await applyBillingEvent(deps, reversed('pi_partial', 'dispute'));
    const after = await balanceAndLedger(accountId);
    expect(after).toMatchObject({ credits: 0, sum: 0 });
  });

  it('of a payment that bought no pack (a subscription invoice) are ignored', async () => {
    expect(await applyBillingEvent(deps, reversed('pi_subscription', 'refund'))).toBe('ignored');
  });
});

describe('payment customers', () => {
  it('one per account: concurrent first uses all get the one recorded first', async () => {
    const accountId = await newAccount();
    const now = new Date().toISOString();
    const results = await Promise.all(['cus_a', 'cus_b', 'cus_c', 'cus_d'].map((id) => billing.attachCustomer(accountId, id, now)));
    expect(new Set(results).size).toBe(1);
    expect(await billing.customerOf(accountId)).toBe(results[0]);
    expect(await billing.accountOfCustomer(results[0]!)).toBe(accountId);
    // The losers' customers were never linked to the account.
    const losers = ['cus_a', 'cus_b', 'cus_c', 'cus_d'].filter((id) => id !== results[0]);
    for (const id of losers) expect(await billing.accountOfCustomer(id)).toBeUndefined();
  });

  it('need the account', async () => {
    await expect(billing.attachCustomer('acc_01NOSUCHACCOUNT0000000000', 'cus_x', new Date().toISOString())).rejects.toBeInstanceOf(NotFoundError);
  });
});
