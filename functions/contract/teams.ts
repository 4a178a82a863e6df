import * as z from 'zod';
import { ROLES } from '#domain/accounts/roles';
import type { AccountChoice } from '#domain/accounts/list-accounts';
import { successEnvelopeSchema } from './envelope';

/** Teams (CONTRACT.md, "Teams"): the accounts a holder belongs to, members, invitations. */

export const role = z.enum(ROLES).meta({ description: 'A member\'s role: `owner`, `admin`, `developer`, `billing` or `viewer` (the API reference\'s "Teams" table says what each may do).' });

export const accountChoice = z
  .object({
    account_id: z.string().meta({ description: 'The account id: pass it as `Vidgen-Account` to act on this account.', examples: ['acc_01M8EKZ4Q9V2H7T3R6N0B5C1DX'] }),
    role,
  })
  .meta({ id: 'AccountMembership' });

export const accountList = z
  .object({ accounts: z.array(accountChoice).meta({ description: 'Every account you belong to, the default first (the one a request without `Vidgen-Account` acts on).' }) })
  .meta({ id: 'AccountList' });
export const accountListResponse = successEnvelopeSchema('AccountListResponse', accountList);

export const toAccountListView = (accounts: readonly AccountChoice[]) => ({ accounts: accounts.map(({ accountId, role: each }) => ({ account_id: accountId, role: each })) });
