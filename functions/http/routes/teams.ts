import { ok } from '#contract/examples';
import { accountListResponse, holderIdParam, memberListResponse, memberRemovedResponse, memberResponse, updateMemberRequest } from '#contract/teams';
import type { RouteDoc } from '../route';
import { json } from './operation-doc';

/** The console's session header in the curl examples (an API key gets 403 here). */
const SESSION = '\\\n  -H "Authorization: Bearer $SESSION_TOKEN"';

const EXAMPLE_MEMBER = { holder_id: '3f1c2a7e-5b9d-4c0e-8a6f-2d4b1e9c7a05', email: 'dev@example.com', role: 'developer' as const, joined_at: '2026-11-27T14:03:11.482Z' };
const MANAGERS = 'For a signed-in session of the account\'s owner or admin (`Vidgen-Account` picks the account); an API key gets 403.';
const ROLE_403 = { description: 'Your role may not manage members, or (an admin) the change touches or makes an owner; or an API key called this.', example: 'Your role in acc_01M8EKZ4Q9V2H7T3R6N0B5C1DX (developer) may not manage members or account settings; a role that may: owner, admin.' };
const NOT_MEMBER = { description: 'No member with this holder id in the account.', example: '3f1c2a7e-5b9d-4c0e-8a6f-2d4b1e9c7a05 is not a member of acc_01M8EKZ4Q9V2H7T3R6N0B5C1DX.' };
const LAST_OWNER = { description: 'The change would leave the account without an owner.', example: 'acc_01M8EKZ4Q9V2H7T3R6N0B5C1DX would be left without an owner: make another member an owner first.' };

/** Teams (CONTRACT.md, "Teams"): the accounts a holder belongs to, and an account's members. */
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
  {
    handler: 'list-members',
    doc: {
      operationId: 'listMembers',
      summary: 'List members',
      description: `The account's members, earliest joined first, each with their email and role, and its open invitations. ${MANAGERS}`,
      tag: 'Teams',
      success: { description: 'The members and open invitations.', ...json(memberListResponse, ok({ members: [EXAMPLE_MEMBER], invitations: [] })) },
      errors: [401, 403, 429, 500],
      errorNotes: { 403: ROLE_403 },
      curl: `curl -s "{BASE}/account/members" ${SESSION}`,
    },
  },
  {
    handler: 'update-member',
    doc: {
      operationId: 'updateMember',
      summary: 'Change a member\'s role',
      description: `Gives a member another role. An admin may neither change an owner nor make one. An account always keeps at least one owner, whatever the concurrency: the change that would leave none is 409 \`last_owner\`. The same role again changes nothing. A member's sessions act with the new role once the authorizer's cached answer for their token expires (at most its TTL). Every change writes an audit entry (\`member.role_changed\`) in the same transaction. ${MANAGERS}`,
      tag: 'Teams',
      request: { params: holderIdParam, body: json(updateMemberRequest) },
      success: { description: 'The member, with the new role.', ...json(memberResponse, ok({ ...EXAMPLE_MEMBER, role: 'admin' })) },
      errors: [400, 401, 403, 404, 409, 429, 500],
      errorNotes: { 403: ROLE_403, 404: NOT_MEMBER, 409: LAST_OWNER },
      curl: `curl -s -X PATCH "{BASE}/account/members/$HOLDER_ID" ${SESSION} \\\n  -H 'Content-Type: application/json' \\\n  -d '{"role":"admin"}'`,
    },
  },
  {
    handler: 'remove-member',
    doc: {
      operationId: 'removeMember',
      summary: 'Remove a member',
      description: `Removes a member from the account (yourself too: leaving). An admin may not remove an owner. The account always keeps at least one owner: removing the last is 409 \`last_owner\`. The removed member's sessions lose the account once the authorizer's cached answer for their token expires (at most its TTL); the API keys they made stay until revoked. Writes an audit entry (\`member.removed\`) in the same transaction. ${MANAGERS}`,
      tag: 'Teams',
      request: { params: holderIdParam },
      success: { description: 'The member is removed.', ...json(memberRemovedResponse, ok({ holder_id: EXAMPLE_MEMBER.holder_id, removed: true })) },
      errors: [401, 403, 404, 409, 429, 500],
      errorNotes: { 403: ROLE_403, 404: NOT_MEMBER, 409: LAST_OWNER },
      curl: `curl -s -X DELETE "{BASE}/account/members/$HOLDER_ID" ${SESSION}`,
    },
  },
];
