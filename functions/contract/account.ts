import * as z from 'zod';
import { SUBSCRIPTION_STATUSES } from '#domain/accounts/account';
import type { AccountOverview } from '#domain/accounts/get-account';
import { successEnvelopeSchema } from './envelope';
import { jsonObject } from './fields';

const balance = (mode: string) =>
  z.object({ credits: z.number().int().meta({ description: `Remaining ${mode} credits.` }) }).meta({ description: `The ${mode} balance.` });

/** GET /account: the account behind a session or a key, with both balances. */
export const accountView = z
  .object({
    account_id: z.string().meta({ description: 'The account (`acc_…`), the same in both modes.', example: 'acc_01JZ8Q6W4V3K7ZB5X2N9R1T0CE' }),
    email: z.string().nullable().meta({ description: "The signed-in holder's email; null when the request came with an API key." }),
    created_at: z.string().meta({ description: 'When the account was opened (ISO 8601).' }),
    live: balance('live'),
    test: balance('test'),
    paid_access: z.boolean().meta({ description: 'Whether the account has paid access (live mode; test mode has the same, or more with a test subscription: `GET /credits` in test mode).' }),
    subscription_status: z.enum(SUBSCRIPTION_STATUSES).meta({ description: 'The subscription behind "subscription required" models (live mode; test mode has the same, or a test subscription: `GET /credits` in test mode).' }),
    output_retention_days: z.number().int().min(1).max(3650).nullable().meta({
      description: 'Outputs of tasks completed longer ago than this many days are deleted (both modes), within an hour of their `expires_at`; null: kept for good (the default). Set with `PATCH /account`.',
    }),
  })
  .meta({ id: 'Account' });

const RETENTION_RULE = 'give a whole number of days from 1 to 3650, or null to keep outputs for good';
/** PATCH /account: the account's settings a holder may change (owner or admin). */
export const updateAccountBody = jsonObject({
  output_retention_days: z.union([z.number({ error: RETENTION_RULE }).int(RETENTION_RULE).min(1, RETENTION_RULE).max(3650, RETENTION_RULE), z.null()], { error: RETENTION_RULE }).meta({
    description: 'Days to keep outputs after a task completes (1 to 3650), or null to keep them for good.',
  }),
});
export const updateAccountRequest = updateAccountBody.meta({ id: 'UpdateAccountRequest' });

/** The new retention: a number of days, or null. */
export const parseUpdateAccount = (body: unknown): number | null => updateAccountBody.parse(body).output_retention_days;

export const accountResponse = successEnvelopeSchema('AccountResponse', accountView);

export function toAccountView({ live, test, email }: AccountOverview): z.infer<typeof accountView> {
  return {
    account_id: live.accountId,
    email,
    created_at: live.createdAt,
    live: { credits: live.credits },
    test: { credits: test.credits },
    paid_access: live.paidAccess,
    subscription_status: live.subscriptionStatus,
    output_retention_days: live.outputRetentionDays ?? null,
  };
}
