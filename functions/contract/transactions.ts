import * as z from 'zod';
import type { Page } from '#domain/shared/page';
import { LEDGER_KINDS, type LedgerEntry } from '#domain/accounts/ledger';
import { successEnvelopeSchema } from './envelope';
import { timestamp } from './fields';
import { pagination, paginationView } from './pagination';

/** GET /credits/transactions: every movement of the caller's balance (its ledger), newest first. */
export const creditTransaction = z
  .object({
    transaction_id: z.string().meta({ description: 'Id of this movement (`txn_` + ULID).', examples: ['txn_01M7ZNHRE3YZJA4Y3XQS4DQDGQ'] }),
    type: z.enum(LEDGER_KINDS).meta({
      description:
        '`grant`: credits added (the opening balance, test credits, support); `charge`: a task started; `refund`: a failed or canceled task given back; `purchase`: a credit pack bought; `reversal`: a refunded or disputed pack taken back (never below zero).',
    }),
    amount: z.number().int().meta({ description: 'Signed: negative for a charge, positive for a grant or refund. The sum of every amount is your balance.' }),
    task_id: z.string().nullable().meta({ description: 'The `video_id` or `image_id` a charge or refund belongs to; null for a grant, purchase or reversal.' }),
    reason: z.string().nullable().meta({ description: 'Why, in words.' }),
    created_at: timestamp('When the balance changed.'),
  })
  .meta({ id: 'CreditTransaction' });

export const transactionPage = z
  .object({
    transactions: z.array(creditTransaction).meta({ description: 'Newest first.' }),
    pagination,
  })
  .meta({ id: 'TransactionPage' });

export const transactionPageResponse = successEnvelopeSchema('TransactionPageResponse', transactionPage);

export const TRANSACTION_ID_PREFIX = 'txn_';

export function transactionView(entry: LedgerEntry): z.infer<typeof creditTransaction> {
  return {
    transaction_id: `${TRANSACTION_ID_PREFIX}${entry.entryId}`,
    type: entry.kind,
    amount: entry.amount,
    task_id: entry.taskId ?? null,
    reason: entry.reason || null,
    created_at: entry.createdAt,
  };
}

export const transactionPageView = (page: Page<LedgerEntry>): z.infer<typeof transactionPage> => ({
  transactions: page.items.map(transactionView),
  pagination: paginationView(page),
});
