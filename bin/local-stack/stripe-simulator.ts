import { randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

/**
 * The local stand-in for Stripe, as the simulated generation provider stands in for Replicate:
 * the API's Stripe adapter talks to it over HTTP exactly as it talks to Stripe (the subset it
 * uses: customers, Checkout Sessions, portal sessions), and its pages act for the customer:
 * "Pay" on the checkout page sends the events Stripe would (checkout.session.completed, and for
 * the plan customer.subscription.created and invoice.paid), signed with the webhook secret the
 * Stripe way (`t=…,v1=…`), to the API's webhook endpoint over HTTP, so the same code runs.
 * The portal page cancels the subscription, fails or renews its payment, and refunds or
 * disputes a pack. `POST /simulator/events` signs and sends any event (tests, a developer's
 * script): only as JSON and only with `Authorization: Bearer <eventsToken>`, since whoever can
 * send events can grant any account any credits. The local stack keeps the token in a file only
 * its owner can read (billing.ts); the checkout and portal pages need none (their ids are secret).
 *
 * Tests of the adapter script faults (a status, a hang, malformed JSON) for the next requests.
 */

export interface SimulatorPrice {
  amount: number;
  currency: string;
  /** For the plan's price. */
  interval?: string;
}

/** `shouldRetry`: the Stripe-Should-Retry header Stripe sends (e.g. true on a 429 lock timeout). */
export type SimulatorFault = { kind: 'status'; status: number; shouldRetry?: boolean } | { kind: 'hang' } | { kind: 'malformed' };

export interface StripeSimulatorOptions {
  host?: string;
  port?: number;
  webhookSecret: string;
  /** What POST /simulator/events must be sent with (unset: a fresh random one). */
  eventsToken?: string;
  /** Where events go (the API's POST /billing/stripe-webhook); may be set after start. */
  webhookUrl?: string;
  prices?: Record<string, SimulatorPrice>;
}

export interface DeliveredEvent {
  type: string;
  status: number;
}

export interface StripeSimulator {
  url: string;
  webhookSecret: string;
  /** The bearer token POST /simulator/events needs. */
  eventsToken: string;
  setWebhookUrl(url: string): void;
  /** Faults for the next API requests, in order (pages and /simulator are never faulted). */
  fail(...faults: SimulatorFault[]): void;
  /** API requests received: method, path and the idempotency key sent. */
  requests: { method: string; path: string; idempotencyKey?: string }[];
  deliveries: DeliveredEvent[];
  /** Signs `object` as an event of `type` and posts it to the webhook URL; returns the answer's status. */
  sendEvent(type: string, object: Record<string, unknown>, options?: { created?: number }): Promise<number>;
  stop(): Promise<void>;
}

type Fields = Record<string, unknown>;
interface Session {
  id: string;
  mode: 'payment' | 'subscription';
  customer: string;
  client_reference_id?: string;
  metadata: Record<string, string>;
  price: string;
  success_url: string;
  cancel_url: string;
  status: 'open' | 'complete' | 'expired';
}
interface Payment {
  id: string;
  charge: string;
  customer: string;
  amount: number;
  refunded: number;
  metadata: Record<string, string>;
}
interface Subscription {
  id: string;
  customer: string;
  status: string;
  metadata: Record<string, string>;
  /** What each invoice charges (the plan's price). */
  amount: number;
  currency: string;
}

const newId = (prefix: string) => `${prefix}_sim${randomBytes(9).toString('hex')}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);

export async function startStripeSimulator(options: StripeSimulatorOptions): Promise<StripeSimulator> {
  const host = options.host ?? '127.0.0.1';
  const eventsToken = options.eventsToken ?? `sim_${randomBytes(24).toString('base64url')}`;
  let webhookUrl = options.webhookUrl;
  const prices = options.prices ?? {};
  const customers = new Map<string, Fields>();
  /** Answers by idempotency key, as Stripe keeps them: a retried create gets the first answer. */
  const idempotent = new Map<string, Fields>();
  const sessions = new Map<string, Session>();
  const portals = new Map<string, { customer: string; return_url: string }>();
  const payments = new Map<string, Payment>();
  const subscriptions = new Map<string, Subscription>();
  const faults: SimulatorFault[] = [];
  const requests: StripeSimulator['requests'] = [];
  const deliveries: DeliveredEvent[] = [];
  const hanging = new Set<http.ServerResponse>();
  let url = '';

  async function sendEvent(type: string, object: Fields, eventOptions: { created?: number } = {}): Promise<number> {
    if (!webhookUrl) throw new Error('The Stripe simulator has no webhook URL to send events to.');
    const payload = JSON.stringify({ id: newId('evt'), object: 'event', type, created: eventOptions.created ?? nowSeconds(), livemode: false, data: { object } });
    const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: options.webhookSecret });
    const response = await fetch(webhookUrl, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Stripe-Signature': signature }, body: payload });
    await response.arrayBuffer();
    deliveries.push({ type, status: response.status });
    return response.status;
  }

  const subscriptionObject = ({ amount: _amount, currency: _currency, ...subscription }: Subscription) => ({ object: 'subscription', ...subscription });
  /** A paid invoice of the subscription, as Stripe's invoice object carries it (https://docs.stripe.com/api/invoices/object). */
  const paidInvoice = (subscription: Subscription) => {
    const now = nowSeconds();
    return {
      object: 'invoice',
      id: newId('in'),
      customer: subscription.customer,
      subscription: subscription.id,
      amount_paid: subscription.amount,
      currency: subscription.currency,
      created: now,
      status: 'paid',
      status_transitions: { paid_at: now },
    };
  };

  async function pay(session: Session): Promise<void> {
    session.status = 'complete';
    const price = prices[session.price] ?? { amount: 0, currency: 'usd' };
    const base = { object: 'checkout.session', id: session.id, mode: session.mode, customer: session.customer, client_reference_id: session.client_reference_id ?? null, metadata: session.metadata, payment_status: 'paid', amount_total: price.amount, currency: price.currency };
    if (session.mode === 'payment') {
      const payment: Payment = { id: newId('pi'), charge: newId('ch'), customer: session.customer, amount: price.amount, refunded: 0, metadata: session.metadata };
      payments.set(payment.id, payment);
      await sendEvent('checkout.session.completed', { ...base, payment_intent: payment.id, subscription: null });
      return;
    }
    const subscription: Subscription = { id: newId('sub'), customer: session.customer, status: 'active', metadata: session.metadata, amount: price.amount, currency: price.currency };
    subscriptions.set(subscription.id, subscription);
    await sendEvent('checkout.session.completed', { ...base, payment_intent: null, subscription: subscription.id });
    await sendEvent('customer.subscription.created', subscriptionObject(subscription));
    await sendEvent('invoice.paid', paidInvoice(subscription));
  }

  async function portalAction(customer: string, action: string, target: string | undefined): Promise<void> {
    const subscription = [...subscriptions.values()].reverse().find((candidate) => candidate.customer === customer && candidate.status !== 'canceled');
    const payment = target ? payments.get(target) : undefined;
    if (action === 'cancel' && subscription) {
      subscription.status = 'canceled';
      await sendEvent('customer.subscription.deleted', subscriptionObject(subscription));
    } else if ((action === 'fail' || action === 'renew') && subscription) {
      subscription.status = action === 'fail' ? 'past_due' : 'active';
      await sendEvent('customer.subscription.updated', subscriptionObject(subscription));
      if (action === 'renew') await sendEvent('invoice.paid', paidInvoice(subscription));
    } else if (action === 'refund' && payment) {
      payment.refunded = payment.amount;
      await sendEvent('charge.refunded', { object: 'charge', id: payment.charge, payment_intent: payment.id, customer, amount: payment.amount, amount_refunded: payment.refunded, refunded: true });
    } else if (action === 'dispute' && payment) {
      await sendEvent('charge.dispute.created', { object: 'dispute', id: newId('dp'), charge: payment.charge, payment_intent: payment.id, amount: payment.amount, status: 'needs_response' });
    }
  }

  function api(method: string, path: string, form: Fields, idempotencyKey: string | undefined): [number, Fields] {
    if (idempotencyKey && idempotent.has(idempotencyKey)) return [200, idempotent.get(idempotencyKey)!];
    let answer: Fields | undefined;
    if (method === 'POST' && path === '/v1/customers') {
      answer = { id: newId('cus'), object: 'customer', metadata: form.metadata ?? {} };
      customers.set(answer.id as string, answer);
    } else if (method === 'POST' && path === '/v1/checkout/sessions') {
      const lineItems = (form.line_items ?? {}) as Record<string, Fields>;
      const price = String(lineItems['0']?.price ?? '');
      if (!prices[price]) return [400, { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such price: '${price}'` } }];
      const customer = String(form.customer ?? '');
      if (!customers.has(customer)) return [400, { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such customer: '${customer}'` } }];
      const session: Session = {
        id: newId('cs'),
        mode: form.mode === 'subscription' ? 'subscription' : 'payment',
        customer,
        ...(typeof form.client_reference_id === 'string' && { client_reference_id: form.client_reference_id }),
        metadata: (form.metadata ?? {}) as Record<string, string>,
        price,
        success_url: String(form.success_url ?? ''),
        cancel_url: String(form.cancel_url ?? ''),
        status: 'open',
      };
      sessions.set(session.id, session);
      answer = { ...session, object: 'checkout.session', url: `${url}/checkout/${session.id}` };
    } else if (method === 'POST' && path === '/v1/billing_portal/sessions') {
      const id = newId('bps');
      portals.set(id, { customer: String(form.customer ?? ''), return_url: String(form.return_url ?? '') });
      answer = { id, object: 'billing_portal.session', customer: form.customer, url: `${url}/portal/${id}` };
    }
    if (!answer) return [404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path}).` } }];
    if (idempotencyKey) idempotent.set(idempotencyKey, answer);
    return [200, answer];
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const path = new URL(req.url ?? '/', 'http://simulator').pathname;
        const method = req.method ?? 'GET';
        try {
          if (path.startsWith('/v1/')) {
            const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
            requests.push({ method, path, ...(idempotencyKey && { idempotencyKey }) });
            const fault = faults.shift();
            if (fault?.kind === 'hang') return void hanging.add(res);
            if (fault?.kind === 'malformed') return void res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"id": "cus_');
            if (fault?.kind === 'status') {
              const retry = fault.shouldRetry === undefined ? {} : { 'Stripe-Should-Retry': String(fault.shouldRetry) };
              return void res.writeHead(fault.status, { 'Content-Type': 'application/json', ...retry }).end(JSON.stringify({ error: { type: 'api_error', message: 'Simulated failure' } }));
            }
            const [status, answer] = api(method, path, parseForm(body), idempotencyKey);
            return void res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(answer));
          }
          const [, area, id, action] = path.split('/');
          if (area === 'simulator' && id === 'events' && method === 'POST') {
            if (!bearerIs(req.headers.authorization, eventsToken)) return void refuse(res, 401, 'Send the simulator\'s token: Authorization: Bearer <eventsToken>.');
            if (!isJson(req.headers['content-type'])) return void refuse(res, 415, 'Content-Type must be application/json.');
            const event = eventOf(body);
            if (!event) return void refuse(res, 400, 'The body must be a JSON object with "type" (a string), "object" (an object) and optionally "created" (seconds).');
            const status = await sendEvent(event.type, event.object, event.created === undefined ? {} : { created: event.created });
            return void json(res, 200, { delivered: status });
          }
          if (area === 'checkout' && id && sessions.has(id)) {
            const session = sessions.get(id)!;
            if (method === 'POST' && action === 'pay' && session.status === 'open') await pay(session);
            if (method === 'POST' && action === 'cancel') session.status = 'expired';
            if (method === 'POST') return void redirect(res, action === 'pay' ? session.success_url : session.cancel_url);
            return void page(res, checkoutPage(session, prices[session.price]));
          }
          if (area === 'portal' && id && portals.has(id)) {
            const portal = portals.get(id)!;
            if (method === 'POST' && action) {
              await portalAction(portal.customer, action, new URLSearchParams(body).get('payment') ?? undefined);
              return void redirect(res, `/portal/${id}`);
            }
            const mine = (values: Iterable<{ customer: string }>) => [...values].filter((value) => value.customer === portal.customer);
            return void page(res, portalPage(id, portal.return_url, mine(subscriptions.values()) as Subscription[], mine(payments.values()) as Payment[]));
          }
          json(res, 404, { error: { message: 'Not found' } });
        } catch (error) {
          json(res, 500, { error: { type: 'api_error', message: String(error) } });
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  url = `http://${host}:${(server.address() as AddressInfo).port}`;

  return {
    url,
    webhookSecret: options.webhookSecret,
    eventsToken,
    setWebhookUrl: (next) => (webhookUrl = next),
    fail: (...next) => faults.push(...next),
    requests,
    deliveries,
    sendEvent,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function bearerIs(header: string | undefined, token: string): boolean {
  const given = Buffer.from(/^Bearer (.+)$/.exec(header ?? '')?.[1] ?? '');
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const isJson = (contentType: string | undefined) => (contentType ?? '').split(';')[0]!.trim().toLowerCase() === 'application/json';

function eventOf(body: string): { type: string; object: Fields; created?: number } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const { type, object, created } = (parsed ?? {}) as { type?: unknown; object?: unknown; created?: unknown };
  const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!isObject(parsed) || typeof type !== 'string' || !isObject(object) || (created !== undefined && typeof created !== 'number')) return undefined;
  return { type, object, ...(created !== undefined && { created }) };
}

function refuse(res: http.ServerResponse, status: number, message: string): void {
  json(res, status, { error: { type: 'invalid_request_error', message } });
}

/** Stripe's form encoding (`a[b][0][c]=v`) back into nested objects (arrays as index-keyed objects). */
function parseForm(body: string): Fields {
  const root: Fields = {};
  for (const [name, value] of new URLSearchParams(body)) {
    const keys = name.replace(/\]/g, '').split('[');
    let node = root;
    keys.forEach((key, index) => {
      if (index === keys.length - 1) node[key] = value;
      else node = (node[key] ??= {}) as Fields;
    });
  }
  return root;
}

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
const money = (price: SimulatorPrice | undefined) => (price ? `${(price.amount / 100).toFixed(2)} ${price.currency.toUpperCase()}` : 'unknown price');

function checkoutPage(session: Session, price: SimulatorPrice | undefined): string {
  const what = session.mode === 'payment' ? `${escapeHtml(session.metadata.credits ?? '?')} credits (pack "${escapeHtml(session.metadata.pack_id ?? '?')}")` : `Subscription, every ${escapeHtml(price?.interval ?? 'month')}`;
  const done = session.status !== 'open' ? `<p>This checkout is ${session.status}.</p>` : '';
  return `<h1>Checkout (simulated Stripe)</h1><p>${what}</p><p><strong>${money(price)}</strong></p>${done}
<form method="post" action="/checkout/${session.id}/pay"><button id="pay" ${session.status !== 'open' ? 'disabled' : ''}>Pay</button></form>
<form method="post" action="/checkout/${session.id}/cancel"><button id="cancel">Cancel</button></form>`;
}

function portalPage(id: string, returnUrl: string, subscriptions: Subscription[], payments: Payment[]): string {
  const subscriptionRows = subscriptions.map((subscription) => `<li>${subscription.id}: <strong class="status">${subscription.status}</strong></li>`).join('') || '<li>No subscription.</li>';
  const paymentRows =
    payments
      .map(
        (payment) =>
          `<li>${payment.id} (${escapeHtml(payment.metadata.pack_id ?? '')}, ${(payment.amount / 100).toFixed(2)}${payment.refunded ? ', refunded' : ''})
<form method="post" action="/portal/${id}/refund"><input type="hidden" name="payment" value="${payment.id}"><button>Refund</button></form>
<form method="post" action="/portal/${id}/dispute"><input type="hidden" name="payment" value="${payment.id}"><button>Dispute</button></form></li>`,
      )
      .join('') || '<li>No purchases.</li>';
  return `<h1>Customer portal (simulated Stripe)</h1><h2>Subscription</h2><ul>${subscriptionRows}</ul>
<form method="post" action="/portal/${id}/cancel"><button id="cancel-subscription">Cancel subscription</button></form>
<form method="post" action="/portal/${id}/fail"><button id="fail-payment">Simulate a failed renewal (past_due)</button></form>
<form method="post" action="/portal/${id}/renew"><button id="renew">Simulate a successful renewal</button></form>
<h2>Purchases</h2><ul>${paymentRows}</ul><p><a href="${escapeHtml(returnUrl)}">Return</a></p>`;
}

function page(res: http.ServerResponse, body: string): void {
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head><meta charset="utf-8"><title>Simulated Stripe</title></head><body>${body}</body></html>`);
}

function redirect(res: http.ServerResponse, location: string): void {
  res.writeHead(303, { Location: location }).end();
}

function json(res: http.ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(value));
}
