import Stripe from 'stripe';
import { StripeGateway } from '#adapters/stripe/stripe-gateway';
import { UpstreamError, ValidationError } from '#domain/shared/errors';
import { startStripeSimulator, type StripeSimulator } from '#bin/local-stack/stripe-simulator';

/** The Stripe adapter over HTTP against the simulator on 127.0.0.1, with Stripe's faults scripted. */

const WEBHOOK_SECRET = 'whsec_test_gateway';
let simulator: StripeSimulator;

beforeAll(async () => {
  simulator = await startStripeSimulator({
    webhookSecret: WEBHOOK_SECRET,
    prices: { price_pack: { amount: 500, currency: 'usd' }, price_plan: { amount: 2000, currency: 'usd', interval: 'month' } },
  });
});

afterAll(async () => {
  await simulator.stop();
});

beforeEach(() => {
  simulator.requests.length = 0;
});

function gateway(options: { timeoutMs?: number; maxNetworkRetries?: number } = {}) {
  return new StripeGateway({
    secretKey: async () => 'sk_test_gateway',
    webhookSecret: async () => WEBHOOK_SECRET,
    apiBase: simulator.url,
    ...options,
  });
}

describe('calls to Stripe', () => {
  it('make one customer per account, even for concurrent first uses (one idempotency key per account)', async () => {
    const ids = await Promise.all(Array.from({ length: 4 }, () => gateway().createCustomer('acc_ONE')));
    expect(new Set(ids).size).toBe(1);
    expect(simulator.requests.map((request) => request.idempotencyKey)).toEqual(Array(4).fill('customer-acc_ONE'));
    expect(await gateway().createCustomer('acc_TWO')).not.toBe(ids[0]);
  });

  it('open a checkout for a pack (payment) or the plan (subscription) on the customer, with the account in it', async () => {
    const customerId = await gateway().createCustomer('acc_CHECKOUT');
    const request = { accountId: 'acc_CHECKOUT', customerId, successUrl: 'http://127.0.0.1:1/ok', cancelUrl: 'http://127.0.0.1:1/no' };
    const packUrl = await gateway().createCheckout({ ...request, item: { kind: 'pack', packId: 'starter', priceId: 'price_pack', credits: 500 } });
    expect(packUrl).toMatch(new RegExp(`^${simulator.url}/checkout/cs_`));
    const page = await (await fetch(packUrl)).text();
    expect(page).toContain('500 credits (pack "starter")');
    const planUrl = await gateway().createCheckout({ ...request, item: { kind: 'plan', priceId: 'price_plan' } });
    expect(await (await fetch(planUrl)).text()).toContain('Subscription, every month');
    expect(await gateway().createPortal(customerId, 'http://127.0.0.1:1/back')).toMatch(new RegExp(`^${simulator.url}/portal/`));
  });

  it('retry a 5xx and a 429 Stripe says to retry (a lock timeout) under the same idempotency key, and succeed', async () => {
    simulator.fail({ kind: 'status', status: 500 }, { kind: 'status', status: 429, shouldRetry: true });
    const id = await gateway().createCustomer('acc_RETRY');
    expect(id).toMatch(/^cus_/);
    expect(simulator.requests).toHaveLength(3);
    expect(new Set(simulator.requests.map((request) => request.idempotencyKey))).toEqual(new Set(['customer-acc_RETRY']));
  });

  it('give up after maxNetworkRetries with UpstreamError (502), not a raw error', async () => {
    simulator.fail({ kind: 'status', status: 503 }, { kind: 'status', status: 503 }, { kind: 'status', status: 503 });
    await expect(gateway().createCustomer('acc_DOWN')).rejects.toBeInstanceOf(UpstreamError);
    expect(simulator.requests).toHaveLength(3);
  });

  it('answer a rate limit (a 429 Stripe does not say to retry) at once with UpstreamError: retrying would only add load', async () => {
    simulator.fail({ kind: 'status', status: 429 });
    await expect(gateway().createCustomer('acc_LIMITED')).rejects.toBeInstanceOf(UpstreamError);
    expect(simulator.requests).toHaveLength(1);
  });

  it('time out a request that hangs (and its retry) with UpstreamError', async () => {
    simulator.fail({ kind: 'hang' }, { kind: 'hang' });
    await expect(gateway({ timeoutMs: 300, maxNetworkRetries: 1 }).createCustomer('acc_HANG')).rejects.toBeInstanceOf(UpstreamError);
    expect(simulator.requests).toHaveLength(2);
  });

  it('read a malformed answer as UpstreamError', async () => {
    simulator.fail({ kind: 'malformed' });
    await expect(gateway({ maxNetworkRetries: 0 }).createCustomer('acc_MALFORMED')).rejects.toBeInstanceOf(UpstreamError);
  });

  it('say a refused request (an unknown price) is the settings\' doing', async () => {
    const customerId = await gateway().createCustomer('acc_PRICE');
    const refused = gateway().createCheckout({ accountId: 'acc_PRICE', customerId, item: { kind: 'plan', priceId: 'price_gone' }, successUrl: 'http://x/', cancelUrl: 'http://x/' });
    await expect(refused).rejects.toThrow(/price that does not exist/);
  });
});

describe('webhook signatures', () => {
  const payload = JSON.stringify({
    id: 'evt_1',
    object: 'event',
    type: 'checkout.session.completed',
    created: 1_700_000_000,
    data: { object: { id: 'cs_1', object: 'checkout.session', mode: 'payment', payment_status: 'paid', client_reference_id: 'acc_A', customer: 'cus_A', payment_intent: 'pi_A', metadata: { account_id: 'acc_A', pack_id: 'starter', credits: '500' } } },
  });
  const sign = (body: string, options: { secret?: string; timestamp?: number } = {}) =>
    Stripe.webhooks.generateTestHeaderString({ payload: body, secret: options.secret ?? WEBHOOK_SECRET, ...(options.timestamp && { timestamp: options.timestamp }) });

  it('accept a signed event and read it', async () => {
    expect(await gateway().readEvent(payload, sign(payload))).toEqual({
      type: 'checkout_paid',
      eventId: 'evt_1',
      checkoutId: 'cs_1',
      accountId: 'acc_A',
      customerId: 'cus_A',
      purchase: { packId: 'starter', credits: 500, paymentId: 'pi_A' },
    });
  });

  it.each([
    ['unsigned', () => undefined],
    ['signed with another secret', () => sign(payload, { secret: 'whsec_other' })],
    ['signed more than 5 minutes ago', () => sign(payload, { timestamp: Math.floor(Date.now() / 1000) - 301 })],
    ['signed over another body', () => sign(payload.replace('"500"', '"50000"'))],
  ])('refuse an event %s with a 400 naming Stripe-Signature', async (_name, signature) => {
    const error = await gateway().readEvent(payload, signature()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ field: 'Stripe-Signature' });
  });

  it('refuse a signed body that is not JSON as a 400 naming the body', async () => {
    await expect(gateway().readEvent('not json', sign('not json'))).rejects.toMatchObject({ field: 'body' });
  });
});
