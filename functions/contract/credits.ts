import * as z from 'zod';
import { SUBSCRIPTION_STATUSES, type Account } from '#domain/accounts/account';
import { successEnvelopeSchema } from './envelope';

/** GET /credits: the balance and what the account may use. */
export const creditsView = z
  .object({
    credits: z.number().int().meta({ description: 'Remaining credits.' }),
    paid_access: z.boolean().meta({ description: 'Whether the account has paid access (needed by `POST /generate-image`).' }),
    subscription_status: z.enum(SUBSCRIPTION_STATUSES).meta({
      description: 'Models marked "subscription required" (vid-2-0, vid-2-0-fast, image-2) need paid access and `active`.',
    }),
  })
  .meta({ id: 'Credits' });

export const creditsResponse = successEnvelopeSchema('CreditsResponse', creditsView);

export function toCreditsView(account: Account): z.infer<typeof creditsView> {
  return {
    credits: account.credits,
    paid_access: account.paidAccess,
    subscription_status: account.subscriptionStatus,
  };
}
