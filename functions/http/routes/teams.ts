import { ok } from '#contract/examples';
import { accountListResponse } from '#contract/teams';
import type { RouteDoc } from '../route';
import { json } from './operation-doc';

/** The console's session header in the curl examples (an API key gets 403 here). */
const SESSION = '\\\n  -H "Authorization: Bearer $SESSION_TOKEN"';

/** Teams (CONTRACT.md, "Teams"): the accounts a holder belongs to. */
export const TEAM_DOCS: RouteDoc[] = [
  {
    handler: 'list-accounts',
    doc: {
      operationId: 'listAccounts',
      summary: 'List your accounts',
      description:
        'Every account you belong to, with your role in each, the default first: the account you own, else the one you joined first. A session acts on the default unless a request names another with the `Vidgen-Account: acc_…` header; naming an account you do not belong to is 403 `forbidden`. Read afresh on every call, so a membership you just gained or lost shows at once (the authorizer\'s answer for your token is cached for up to its TTL). For a signed-in session, whatever your role; an API key gets 403.',
      tag: 'Teams',
      success: { description: 'Your accounts.', ...json(accountListResponse, ok({ accounts: [{ account_id: 'acc_01M8EKZ4Q9V2H7T3R6N0B5C1DX', role: 'owner' }, { account_id: 'acc_01M8EM0Y8W2T6QK4C9J1H5F3BA', role: 'developer' }] })) },
      errors: [401, 403, 429, 500],
      curl: `curl -s "{BASE}/accounts" ${SESSION}`,
    },
  },
];
