import Stripe from 'stripe';
import type { BillingEvent, InvoicePayment } from '#domain/billing/billing';
import { UpstreamError, ValidationError } from '#domain/shared/errors';
import type { CheckoutRequest, PaymentGateway } from '#domain/billing/ports';

/**
 * Stripe behind the PaymentGateway port, with the official `stripe` package.
 *
 * - Signatures: `Stripe.webhooks.constructEvent` over the raw body, tolerance 300 s; a missing,
 *   forged or stale signature, or a signed body that is not an event, is a ValidationError (400).
 * - Calls: each attempt times out after `timeoutMs`; Stripe's client retries a connection error,
 *   a 409, a 5xx and whatever Stripe marks Stripe-Should-Retry (a 429 lock timeout)
 *   `maxNetworkRetries` times with backoff, each POST under one idempotency key, so a retried
 *   create never makes two. A plain 429 (rate limited) is not retried: more calls would only
 *   add load. What still fails is UpstreamError (502): nothing bought, the holder tries again.
 * - One customer per account: its create carries the idempotency key `customer-<account>`, so
 *   concurrent first checkouts of one account get the same customer from Stripe (for 24 h; the
 *   store's conditional write covers the rest).
 * - Messages never contain the secret key.
 */

export interface StripeGatewayOptions {
  secretKey: () => Promise<string>;
  webhookSecret: () => Promise<string>;
  /** Stripe's API (https://api.stripe.com) unless given: the simulator's or a fake's URL. */
  apiBase?: string;
  timeoutMs?: number;
  maxNetworkRetries?: number;
}

/** A checkout or portal call must answer within API Gateway's 29 s: 3 attempts of 6 s plus backoff. */
export const STRIPE_DEFAULTS = { timeoutMs: 6_000, maxNetworkRetries: 2 } as const;
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export class StripeGateway implements PaymentGateway {
  private client: { key: string; stripe: Stripe } | undefined;

  constructor(private readonly options: StripeGatewayOptions) {}

  async readEvent(rawBody: string, signature: string | undefined): Promise<BillingEvent> {
    if (!signature) throw new ValidationError('Stripe-Signature: missing; only Stripe may call this endpoint.', 'Stripe-Signature');
    let event: Stripe.Event;
    try {
      event = Stripe.webhooks.constructEvent(rawBody, signature, await this.options.webhookSecret(), SIGNATURE_TOLERANCE_SECONDS);
    } catch (error) {
      if (error instanceof Stripe.errors.StripeSignatureVerificationError) {
        throw new ValidationError('Stripe-Signature: does not verify, or is older than 5 minutes.', 'Stripe-Signature');
      }
      throw new ValidationError('body: a signed body that is not a Stripe event.', 'body');
    }
    return readStripeEvent(event);
  }

  async createCustomer(accountId: string): Promise<string> {
    const stripe = await this.stripe();
    const customer = await this.call(() => stripe.customers.create({ metadata: { account_id: accountId } }, { idempotencyKey: `customer-${accountId}` }));
    return customer.id;
  }

  async createCheckout(request: CheckoutRequest): Promise<string> {
    const stripe = await this.stripe();
    const metadata: Record<string, string> = { account_id: request.accountId };
    if (request.item.kind === 'pack') Object.assign(metadata, { pack_id: request.item.packId, credits: String(request.item.credits) });
    const session = await this.call(() =>
      stripe.checkout.sessions.create({
        mode: request.item.kind === 'pack' ? 'payment' : 'subscription',
        customer: request.customerId,
        client_reference_id: request.accountId,
        metadata,
        line_items: [{ price: request.item.priceId, quantity: 1 }],
        success_url: request.successUrl,
        cancel_url: request.cancelUrl,
        // Refunds and disputes name the payment; a subscription's events name its metadata.
        ...(request.item.kind === 'pack' ? { payment_intent_data: { metadata } } : { subscription_data: { metadata } }),
      }),
    );
    if (!session.url) throw new UpstreamError('Stripe made a checkout without a page to send you to. Nothing was charged; try again.');
    return session.url;
  }

  async createPortal(customerId: string, returnUrl: string): Promise<string> {
    const stripe = await this.stripe();
    const session = await this.call(() => stripe.billingPortal.sessions.create({ customer: customerId, return_url: returnUrl }));
    return session.url;
  }

  /** One client per key: a rotated key (read from Secrets Manager again) gets a new one. */
  private async stripe(): Promise<Stripe> {
    const key = await this.options.secretKey();
    if (this.client?.key !== key) {
      const base = this.options.apiBase ? new URL(this.options.apiBase) : undefined;
      const stripe = new Stripe(key, {
        maxNetworkRetries: this.options.maxNetworkRetries ?? STRIPE_DEFAULTS.maxNetworkRetries,
        timeout: this.options.timeoutMs ?? STRIPE_DEFAULTS.timeoutMs,
        telemetry: false,
        ...(base && { host: base.hostname, port: base.port || (base.protocol === 'https:' ? 443 : 80), protocol: base.protocol === 'https:' ? 'https' : 'http' }),
      });
      this.client = { key, stripe };
    }
    return this.client.stripe;
  }

  private async call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      if (error instanceof Stripe.errors.StripeInvalidRequestError) {
        // Our request, refused (a price id that does not exist): an operator's setting, not the customer's.
        throw new UpstreamError(`Stripe refused the request (${error.code ?? error.type}); nothing was charged. The billing settings may name a price that does not exist.`);
      }
      throw new UpstreamError('Stripe did not answer in time or failed; nothing was charged. Try again.');
    }
  }
}

type Fields = Record<string, unknown>;
const text = (value: unknown): string | undefined => (typeof value === 'string' && value ? value : undefined);
/** An expandable Stripe field: its id, or the object carrying it. */
const idOf = (value: unknown): string | undefined => text(value) ?? text((value as Fields | null)?.id);
const metadataOf = (object: Fields): Fields => (object.metadata && typeof object.metadata === 'object' ? (object.metadata as Fields) : {});

/**
 * What a paid invoice says was paid: `amount_paid` in `currency`, paid at
 * `status_transitions.paid_at` (else its `created`). https://docs.stripe.com/api/invoices/object
 */
function invoicePayment(invoice: Fields): InvoicePayment | undefined {
  const invoiceId = text(invoice.id);
  const amount = Number(invoice.amount_paid);
  const currency = text(invoice.currency);
  const paidAt = Number((invoice.status_transitions as Fields | undefined)?.paid_at ?? invoice.created);
  if (!invoiceId || !Number.isInteger(amount) || !currency || !Number.isFinite(paidAt) || paidAt <= 0) return undefined;
  return { invoiceId, amount, currency, paidAt };
}

/** A verified Stripe event, reduced to what changes an account (functions/domain/billing.ts). */
export function readStripeEvent(event: Pick<Stripe.Event, 'id' | 'type' | 'created'> & { data: { object: unknown } }): BillingEvent {
  const object = event.data?.object as Fields | undefined;
  if (!object || typeof object !== 'object') throw new ValidationError('body: a Stripe event without data.object.', 'body');
  const eventId = event.id;
  const metadata = metadataOf(object);
  const customerId = idOf(object.customer);
  const accountId = text(object.client_reference_id) ?? text(metadata.account_id);
  const ignored: BillingEvent = { type: 'ignored', eventId, eventType: event.type };
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      // A delayed payment method completes the session unpaid; its async_payment_succeeded pays it.
      if (object.payment_status !== 'paid') return ignored;
      const packId = text(metadata.pack_id);
      const credits = Number(metadata.credits);
      const paymentId = idOf(object.payment_intent);
      return {
        type: 'checkout_paid',
        eventId,
        checkoutId: String(object.id),
        ...(accountId && { accountId }),
        ...(customerId && { customerId }),
        ...(object.mode === 'payment' &&
          packId && { purchase: { packId, ...(Number.isInteger(credits) && credits > 0 && { credits }), ...(paymentId && { paymentId }) } }),
      };
    }
    case 'invoice.paid':
    case 'invoice.payment_succeeded': {
      const payment = invoicePayment(object);
      return { type: 'payment_succeeded', eventId, ...(accountId && { accountId }), ...(customerId && { customerId }), ...(payment && { payment }) };
    }
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted':
      return {
        type: 'subscription_changed',
        eventId,
        ...(accountId && { accountId }),
        ...(customerId && { customerId }),
        providerStatus: event.type === 'customer.subscription.deleted' ? 'canceled' : String(object.status),
        occurredAt: event.created,
      };
    case 'charge.refunded': {
      const paymentId = idOf(object.payment_intent);
      const amount = Number(object.amount);
      if (!paymentId || !(amount > 0)) return ignored;
      return { type: 'payment_reversed', eventId, paymentId, reason: 'refund', fraction: Number(object.amount_refunded) / amount };
    }
    case 'charge.dispute.created': {
      const paymentId = idOf(object.payment_intent);
      return paymentId ? { type: 'payment_reversed', eventId, paymentId, reason: 'dispute', fraction: 1 } : ignored;
    }
    default:
      return ignored;
  }
}
