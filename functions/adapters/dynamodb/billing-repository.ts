import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { AuditEntry } from '#domain/shared/audit';
import { auditPart } from './audit/audit-put';
import type { SubscriptionStatus } from '#domain/accounts/account';
import { statusRank, type Purchase, type Reversal, type ReversalEntry, type SubscriptionPayment } from '#domain/billing/billing';
import { NotFoundError } from '#domain/shared/errors';
import type { LedgerEntry } from '#domain/accounts/ledger';
import type { BillingStore } from '#domain/billing/ports';
import { type Db } from './dynamo-client';
import {
  accountKey,
  accountPartition,
  paidInvoiceKey,
  paymentCustomerKey,
  purchaseKey,
  purchasePaymentKey,
  SUBSCRIPTION_PAYMENT_SK_PREFIX,
  subscriptionPaymentKey,
} from './keys';
import { appendWithRetries, LEDGER_COUNT, ledgerMoved, slotAfter } from './ledger-positions';
import { ledgerEntryPut } from './ledger-repository';
import { AGAIN, retryOnConflict, withRetries } from './retry';
import { transact, TransactionRefused } from './transaction';

/** Attributes billing adds to the (live) account item. */
const CUSTOMER = 'payment_customer_id';
const SUBSCRIPTION_AT = 'subscription_event_at';
const SUBSCRIPTION_RANK = 'subscription_rank';

type PurchaseItem = ReturnType<typeof purchaseKey> & {
  type: 'purchase';
  checkout_id: string;
  account_id: string;
  pack_id: string;
  credits: number;
  payment_id?: string;
  reversed_credits: number;
  created_at: string;
};

function toPurchaseItem(purchase: Purchase): PurchaseItem {
  return {
    ...purchaseKey(purchase.checkoutId),
    type: 'purchase',
    checkout_id: purchase.checkoutId,
    account_id: purchase.accountId,
    pack_id: purchase.packId,
    credits: purchase.credits,
    ...(purchase.paymentId && { payment_id: purchase.paymentId }),
    reversed_credits: purchase.reversedCredits,
    created_at: purchase.createdAt,
  };
}

function fromPurchaseItem(item: Record<string, unknown>): Purchase {
  const row = item as unknown as PurchaseItem;
  return {
    checkoutId: row.checkout_id,
    accountId: row.account_id,
    packId: row.pack_id,
    credits: row.credits,
    ...(row.payment_id && { paymentId: row.payment_id }),
    reversedCredits: row.reversed_credits ?? 0,
    createdAt: row.created_at,
  };
}

export class DynamoBillingStore implements BillingStore {
  constructor(private readonly db: Db) {}

  async customerOf(accountId: string): Promise<string | undefined> {
    const item = await this.read(accountKey(accountId));
    return item?.[CUSTOMER] as string | undefined;
  }

  async attachCustomer(accountId: string, customerId: string, now: string): Promise<string> {
    try {
      await retryOnConflict('payment customer attach', () =>
        transact(this.db, [
          [
            'account',
            {
              Update: {
                TableName: this.db.tableName,
                Key: accountKey(accountId),
                UpdateExpression: 'SET #customer = :customer, updated_at = :now',
                ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#customer)',
                ExpressionAttributeNames: { '#customer': CUSTOMER },
                ExpressionAttributeValues: { ':customer': customerId, ':now': now },
              },
            },
          ],
          [
            'customer',
            {
              Put: {
                TableName: this.db.tableName,
                Item: { ...paymentCustomerKey(customerId), type: 'payment_customer', customer_id: customerId, account_id: accountId, created_at: now },
                ConditionExpression: 'attribute_not_exists(pk) OR account_id = :account',
                ExpressionAttributeValues: { ':account': accountId },
              },
            },
          ],
        ]),
      );
      return customerId;
    } catch (error) {
      if (!(error instanceof TransactionRefused && error.failed('account'))) throw error;
      // Gone, or a concurrent first use recorded its customer first: that one is the account's.
      const winner = await this.customerOf(accountId);
      if (!winner) throw new NotFoundError(`No account ${accountId}.`);
      return winner;
    }
  }

  async accountOfCustomer(customerId: string): Promise<string | undefined> {
    return (await this.read(paymentCustomerKey(customerId)))?.account_id as string | undefined;
  }

  async recordPurchase(purchase: Purchase, entry: LedgerEntry, audit: AuditEntry): Promise<'granted' | 'duplicate' | 'unknown_account'> {
    return appendWithRetries(this.db, purchase.accountId, async (seen) => {
      if (seen === undefined) return 'unknown_account';
      // The usual repeat is answered by one read, without queueing on the ledger.
      if (await this.read(purchaseKey(purchase.checkoutId))) return 'duplicate';
      const slot = slotAfter(seen);
      try {
        await transact(this.db, [
          [
            'account',
            {
              Update: {
                TableName: this.db.tableName,
                Key: accountKey(purchase.accountId),
                UpdateExpression: `SET credits = credits + :amount, paid_access = :paid, updated_at = :now, ${slot.set}`,
                ConditionExpression: `attribute_exists(pk) AND ${slot.condition}`,
                ExpressionAttributeNames: slot.names,
                ExpressionAttributeValues: { ':amount': entry.amount, ':paid': true, ':now': entry.createdAt, ...slot.values },
              },
            },
          ],
          ['entry', { Put: ledgerEntryPut(this.db, entry, slot.position) }],
          ['purchase', { Put: { TableName: this.db.tableName, Item: toPurchaseItem(purchase), ConditionExpression: 'attribute_not_exists(pk)' } }],
          purchase.paymentId !== undefined && [
            'payment',
            {
              Put: {
                TableName: this.db.tableName,
                Item: { ...purchasePaymentKey(purchase.paymentId), type: 'purchase_payment', checkout_id: purchase.checkoutId },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          ],
          auditPart(this.db, audit),
        ]);
        return 'granted' as const;
      } catch (error) {
        if (!(error instanceof TransactionRefused)) throw error;
        if (error.failed('purchase')) return 'duplicate' as const;
        if (error.failed('account')) return ledgerMoved(error, 'account');
        if (error.conflict) return AGAIN;
        throw error;
      }
    });
  }

  async purchaseByPayment(paymentId: string): Promise<Purchase | undefined> {
    const link = await this.read(purchasePaymentKey(paymentId));
    if (!link) return undefined;
    const item = await this.read(purchaseKey(link.checkout_id as string));
    return item ? fromPurchaseItem(item) : undefined;
  }

  async reversePurchase(purchase: Purchase, due: number, entry: ReversalEntry, now: string, audit: (reversal: Reversal) => AuditEntry): Promise<Reversal | 'already'> {
    return withRetries('purchase reversal', async () => {
      const [current, account] = await Promise.all([this.read(purchaseKey(purchase.checkoutId)), this.read(accountKey(purchase.accountId))]);
      const claimed = Number(current?.reversed_credits ?? 0);
      if (!current || claimed >= due) return 'already' as const;
      const owed = due - claimed;
      const balance = Math.max(0, Number(account?.credits ?? 0));
      const taken = account ? Math.min(owed, balance) : 0;
      const slot = slotAfter(Number(account?.[LEDGER_COUNT] ?? 0));
      try {
        await transact(this.db, [
          [
            'claim',
            {
              Update: {
                TableName: this.db.tableName,
                Key: purchaseKey(purchase.checkoutId),
                UpdateExpression: 'SET reversed_credits = :due',
                ConditionExpression: 'reversed_credits = :claimed',
                ExpressionAttributeValues: { ':due': due, ':claimed': claimed },
              },
            },
          ],
          taken > 0 && [
            'account',
            {
              Update: {
                TableName: this.db.tableName,
                Key: accountKey(purchase.accountId),
                UpdateExpression: `SET credits = credits - :taken, updated_at = :now, ${slot.set}`,
                // Never below zero: the balance read is the balance written against.
                ConditionExpression: `attribute_exists(pk) AND credits >= :taken AND ${slot.condition}`,
                ExpressionAttributeNames: slot.names,
                ExpressionAttributeValues: { ':taken': taken, ':now': now, ...slot.values },
              },
            },
          ],
          taken > 0 && ['entry', { Put: ledgerEntryPut(this.db, entry(taken), slot.position) }],
          // Also when nothing could be taken: the claim is the change.
          auditPart(this.db, audit({ taken, shortfall: owed - taken })),
        ]);
        return { taken, shortfall: owed - taken };
      } catch (error) {
        // Another reversal claimed first, or the balance or ledger moved: read both again.
        if (error instanceof TransactionRefused && (error.anyFailed || error.conflict)) return AGAIN;
        throw error;
      }
    });
  }

  async setSubscriptionStatus(accountId: string, status: SubscriptionStatus, occurredAt: number, now: string, audit: AuditEntry): Promise<'applied' | 'stale' | 'unknown_account'> {
    try {
      await retryOnConflict('subscription status', () =>
        transact(this.db, [
          [
            'account',
            {
              Update: {
                TableName: this.db.tableName,
                Key: accountKey(accountId),
                UpdateExpression: 'SET subscription_status = :status, #at = :at, #rank = :rank, updated_at = :now',
                ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#at) OR #at < :at OR (#at = :at AND #rank < :rank))',
                ExpressionAttributeNames: { '#at': SUBSCRIPTION_AT, '#rank': SUBSCRIPTION_RANK },
                ExpressionAttributeValues: { ':status': status, ':at': occurredAt, ':rank': statusRank(status), ':now': now },
              },
            },
          ],
          auditPart(this.db, audit),
        ]),
      );
      return 'applied';
    } catch (error) {
      if (!(error instanceof TransactionRefused && error.failed('account'))) throw error;
      return error.old('account') ? 'stale' : 'unknown_account';
    }
  }

  async grantPaidAccess(accountId: string, now: string, audit: AuditEntry): Promise<'applied' | 'unknown_account'> {
    try {
      await retryOnConflict('paid access', () =>
        transact(this.db, [
          [
            'account',
            {
              Update: {
                TableName: this.db.tableName,
                Key: accountKey(accountId),
                UpdateExpression: 'SET paid_access = :paid, updated_at = :now',
                // Only a change writes (and is audited); paid access already on is 'applied' all the same.
                ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(paid_access) OR paid_access <> :paid)',
                ExpressionAttributeValues: { ':paid': true, ':now': now },
              },
            },
          ],
          auditPart(this.db, audit),
        ]),
      );
      return 'applied';
    } catch (error) {
      if (!(error instanceof TransactionRefused && error.failed('account'))) throw error;
      return error.old('account') ? 'applied' : 'unknown_account';
    }
  }

  async recordSubscriptionPayment(payment: SubscriptionPayment): Promise<'recorded' | 'duplicate'> {
    try {
      await transact(this.db, [
        // The invoice's guard: its payment is listed once, whichever of its events comes first.
        [
          'invoice',
          {
            Put: {
              TableName: this.db.tableName,
              Item: { ...paidInvoiceKey(payment.invoiceId), type: 'paid_invoice', account_id: payment.accountId, created_at: payment.paidAt },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        ],
        [
          'payment',
          {
            Put: {
              TableName: this.db.tableName,
              Item: {
                ...subscriptionPaymentKey(payment.accountId, payment.paidAt, payment.invoiceId),
                type: 'subscription_payment',
                invoice_id: payment.invoiceId,
                amount: payment.amount,
                currency: payment.currency,
                paid_at: payment.paidAt,
              },
            },
          },
        ],
      ]);
      return 'recorded';
    } catch (error) {
      if (error instanceof TransactionRefused && error.failed('invoice')) return 'duplicate';
      throw error;
    }
  }

  async listSubscriptionPayments(accountId: string, limit: number): Promise<SubscriptionPayment[]> {
    const { Items = [] } = await this.db.doc.send(
      new QueryCommand({
        TableName: this.db.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': accountPartition(accountId), ':prefix': SUBSCRIPTION_PAYMENT_SK_PREFIX },
        ScanIndexForward: false,
        Limit: limit,
      }),
    );
    return Items.map((item) => ({
      invoiceId: item.invoice_id as string,
      accountId,
      amount: item.amount as number,
      currency: item.currency as string,
      paidAt: item.paid_at as string,
    }));
  }

  private async read(key: { pk: string; sk: string }): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.db.doc.send(new GetCommand({ TableName: this.db.tableName, Key: key, ConsistentRead: true }));
    return Item;
  }
}
