import * as z from 'zod';
import { SUBSCRIPTION_STATUSES } from '#domain/accounts/account';
import type { AccountOverview } from '#domain/accounts/get-account';
import { successEnvelopeSchema } from './envelope';

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
  })
  .meta({ id: 'Account' });

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
  };
}
