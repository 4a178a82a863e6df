import { EXAMPLE_PAGINATION, EXAMPLE_TRANSACTIONS, ok } from '#contract/examples';
import { accountResponse, updateAccountRequest } from '#contract/account';
import { creditsResponse } from '#contract/credits';
import { paginationQuery } from '#contract/pagination';
import { transactionPageResponse } from '#contract/transactions';
import type { RouteDoc } from '../route';
import { AUTH, json, PAGE_ERROR_NOTE } from './operation-doc';

/** The account the examples show (GET, and PATCH with a retention set). */
const EXAMPLE_ACCOUNT = {
  account_id: 'acc_01JZ8Q6W4V3K7ZB5X2N9R1T0CE',
  email: 'ada@example.com',
  created_at: '2026-01-05T09:30:00.000Z',
  live: { credits: 250 },
  test: { credits: 1000 },
  paid_access: false,
  subscription_status: 'none',
  output_retention_days: null,
};

/** The account: credits, access and the ledger. */
export const ACCOUNT_DOCS: RouteDoc[] = [
  {
    handler: 'get-account',
    doc: {
      operationId: 'getAccount',
      summary: 'Get your account',
      description:
        'The account behind the request, with both balances: its id, when it was opened, the live and test credits, paid access and the subscription status. With a session (an access token from signing in to the console) `email` is the signed-in holder\'s; with an API key it is null. The same answer whatever the mode of the key or the `Vidgen-Mode` header.',
      tag: 'Account',
      success: {
        description: 'The account.',
        ...json(
          accountResponse,
          ok(EXAMPLE_ACCOUNT),
        ),
      },
      errors: [400, 401, 429, 500],
      errorNotes: { 400: { description: 'A session sent `Vidgen-Mode` with a value other than `live` or `test`.', example: 'Vidgen-Mode: must be "live" or "test"; got "prod".' } },
      curl: `curl -s "{BASE}/account" ${AUTH}`,
    },
  },
  {
    handler: 'update-account',
    doc: {
      operationId: 'updateAccount',
      summary: 'Change your account settings',
      description:
        'Sets `output_retention_days`: outputs (videos, thumbnails, images) of tasks completed longer ago than this many days are deleted, in both modes, within an hour of their `expires_at`, as `DELETE` on the task would (the task stays, with `output_deleted_at`; charges are unchanged). `null` keeps them for good (the default). A shorter setting applies to tasks already completed. Sessions of an owner or admin only: an API key gets 403.',
      tag: 'Account',
      request: { body: { required: true, description: 'Unknown fields are ignored.', ...json(updateAccountRequest, { output_retention_days: 30 }) } },
      success: {
        description: 'The account as changed.',
        ...json(
          accountResponse,
          ok({ ...EXAMPLE_ACCOUNT, output_retention_days: 30 }),
        ),
      },
      errors: [400, 401, 403, 413, 429, 500],
      errorNotes: {
        400: { example: 'output_retention_days: give a whole number of days from 1 to 3650, or null to keep outputs for good' },
        403: { description: 'An API key, or a member whose role may not change settings.', example: 'This endpoint is for signed-in account holders (a console session), not API keys.' },
      },
      curl: `curl -s -X PATCH "{BASE}/account" \\\n  -H "Authorization: Bearer $SESSION_TOKEN" \\\n  -H 'Content-Type: application/json' \\\n  -d '{"output_retention_days":30}'`,
    },
  },
  {
    handler: 'get-credits',
    doc: {
      operationId: 'getCredits',
      summary: 'Get your credits and access',
      description: 'Remaining credits, the paid-access flag and the subscription status of the account that owns the key. In test mode (a `vg_test_` key, or a session with `Vidgen-Mode: test`) the test balance, with the live account\'s access, or paid access and an active subscription while a test subscription is on (`POST /billing/test-subscription`).',
      tag: 'Account',
      success: {
        description: 'The account.',
        ...json(creditsResponse, ok({ credits: 1000, paid_access: true, subscription_status: 'active' })),
      },
      errors: [401, 429, 500],
      curl: `curl -s "{BASE}/credits" ${AUTH}`,
    },
  },
  {
    handler: 'list-transactions',
    doc: {
      operationId: 'listCreditTransactions',
      summary: 'List your credit transactions',
      description:
        'Every change to your balance, newest first, a page at a time: grants (the opening balance, purchases), the charge of each task you started and the refund of each task that failed or was canceled. The sum of every `amount` equals `credits` in `GET /credits`. A test key lists the test balance\'s transactions. A page past the end is an empty list.',
      tag: 'Account',
      request: { query: paginationQuery },
      success: {
        description: 'One page of transactions.',
        ...json(transactionPageResponse, ok({ transactions: EXAMPLE_TRANSACTIONS, pagination: { ...EXAMPLE_PAGINATION, total: 3 } })),
      },
      errors: [400, 401, 429, 500],
      errorNotes: { 400: PAGE_ERROR_NOTE },
      curl: `curl -s "{BASE}/credits/transactions?page=1&limit=20" ${AUTH}`,
    },
  },
];
