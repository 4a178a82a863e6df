import { ok } from '#contract/examples';
import {
  accountChoiceResponse,
  accountListResponse,
  holderIdParam,
  invitationIdParam,
  invitationResponse,
  invitationRevokedResponse,
  inviteMemberRequest,
  memberListResponse,
  memberRemovedResponse,
  memberResponse,
  receivedInvitationListResponse,
  updateMemberRequest,
} from '#contract/teams';
import type { RouteDoc } from '../route';
import { json } from './operation-doc';

/** The console's session header in the curl examples (an API key gets 403 here). */
const SESSION = '\\\n  -H "Authorization: Bearer $SESSION_TOKEN"';

const EXAMPLE_MEMBER = { holder_id: '3f1c2a7e-5b9d-4c0e-8a6f-2d4b1e9c7a05', email: 'dev@example.com', role: 'developer' as const, joined_at: '2026-11-27T14:03:11.482Z' };
const MANAGERS = 'For a signed-in session of the account\'s owner or admin (`Vidgen-Account` picks the account); an API key gets 403.';
const ROLE_403 = { description: 'Your role may not manage members, or (an admin) the change touches or makes an owner; or an API key called this.', example: 'Your role in acc_01M8EKZ4Q9V2H7T3R6N0B5C1DX (developer) may not manage members or account settings; a role that may: owner, admin.' };
const NOT_MEMBER = { description: 'No member with this holder id in the account.', example: '3f1c2a7e-5b9d-4c0e-8a6f-2d4b1e9c7a05 is not a member of acc_01M8EKZ4Q9V2H7T3R6N0B5C1DX.' };
const EXAMPLE_INVITATION = {
  invitation_id: 'inv_01M8EN2K7Q4R6T8V0X2Z4B6D8F',
  email: 'new@example.com',
  role: 'developer' as const,
  invited_by: '7a9e3c1d-2b4f-4e6a-9c8d-1f0e2d3c4b5a',
  created_at: '2026-11-27T14:03:11.482Z',
  expires_at: '2026-12-04T14:03:11.482Z',
};
const HOLDERS = 'For a signed-in session, whatever your role or account (your own invitations); an API key gets 403.';
const NO_INVITATION = { description: 'No open invitation with this id for you: unknown, to another address, expired, revoked, replaced or used.', example: 'No open invitation inv_01M8EN2K7Q4R6T8V0X2Z4B6D8F for you.' };
const UNVERIFIED = { description: 'Your email address is not verified yet; or an API key called this.', example: 'Verify your email address first.' };
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
      success: { description: 'The members and open invitations.', ...json(memberListResponse, ok({ members: [EXAMPLE_MEMBER], invitations: [EXAMPLE_INVITATION] })) },
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
  {
    handler: 'invite-member',
    doc: {
      operationId: 'inviteMember',
      summary: 'Invite a member',
      description: `Invites an email address to join the account with a role, for 7 days. Whoever signs in with that address, verified, may accept it (\`POST /invitations/{invitation_id}/accept\`); nothing secret is mailed. Inviting the same address again replaces its open invitation (a new id and expiry: the way to resend). An address that is already a member's is 400 naming \`email\`; so is the 101st invitation of the account in a UTC day. An admin may not invite an owner. The mail goes out after the invitation is saved: if it fails the invitation stays valid (the answer is still 200), and the local stack prints it in its log instead. Writes an audit entry (\`member.invited\`) in the same transaction. ${MANAGERS}`,
      tag: 'Teams',
      request: { body: json(inviteMemberRequest) },
      success: { description: 'The invitation.', ...json(invitationResponse, ok(EXAMPLE_INVITATION)) },
      errors: [400, 401, 403, 429, 500],
      errorNotes: { 400: { description: 'The address is invalid, already a member\'s, or the account sent 100 invitations today.', example: 'email: dev@example.com is already a member of acc_01M8EKZ4Q9V2H7T3R6N0B5C1DX.' }, 403: ROLE_403 },
      curl: `curl -s -X POST "{BASE}/account/members" ${SESSION} \\\n  -H 'Content-Type: application/json' \\\n  -d '{"email":"new@example.com","role":"developer"}'`,
    },
  },
  {
    handler: 'revoke-invitation',
    doc: {
      operationId: 'revokeInvitation',
      summary: 'Revoke an invitation',
      description: `Withdraws an open invitation: it can no longer be accepted. An admin may not revoke an invitation to the owner role. Writes an audit entry (\`invitation.revoked\`) in the same transaction. ${MANAGERS}`,
      tag: 'Teams',
      request: { params: invitationIdParam },
      success: { description: 'The invitation is revoked.', ...json(invitationRevokedResponse, ok({ invitation_id: EXAMPLE_INVITATION.invitation_id, revoked: true })) },
      errors: [401, 403, 404, 429, 500],
      errorNotes: { 403: ROLE_403, 404: { description: 'No open invitation with this id in the account.', example: 'No open invitation inv_01M8EN2K7Q4R6T8V0X2Z4B6D8F in acc_01M8EKZ4Q9V2H7T3R6N0B5C1DX.' } },
      curl: `curl -s -X DELETE "{BASE}/account/members/invitations/$SENT_INVITATION_ID" ${SESSION}`,
    },
  },
  {
    handler: 'list-invitations',
    doc: {
      operationId: 'listInvitations',
      summary: 'List your invitations',
      description: `The open invitations to your email address, newest first, each naming its account. The address is the one the identity provider has verified for you now (asked on every call, not taken from a cached sign-in). ${HOLDERS}`,
      tag: 'Teams',
      success: { description: 'Your open invitations.', ...json(receivedInvitationListResponse, ok({ invitations: [{ ...EXAMPLE_INVITATION, account_id: 'acc_01M8EKZ4Q9V2H7T3R6N0B5C1DX' }] })) },
      errors: [401, 403, 429, 500],
      errorNotes: { 403: UNVERIFIED },
      curl: `curl -s "{BASE}/invitations" ${SESSION}`,
    },
  },
  {
    handler: 'accept-invitation',
    doc: {
      operationId: 'acceptInvitation',
      summary: 'Accept an invitation',
      description: `Makes you a member of the invitation's account with its role, and uses the invitation up. Only for an open invitation to your verified address: any other id is the same 404, so an id reveals nothing. Already a member of that account: 400 naming \`invitation_id\`. Your sessions act on the new account once the authorizer's cached answer for your token expires; refresh your token to use it at once. Writes an audit entry (\`member.joined\`) in the same transaction. ${HOLDERS}`,
      tag: 'Teams',
      request: { params: invitationIdParam },
      success: { description: 'The account you joined, with your role.', ...json(accountChoiceResponse, ok({ account_id: 'acc_01M8EKZ4Q9V2H7T3R6N0B5C1DX', role: 'developer' })) },
      errors: [400, 401, 403, 404, 429, 500],
      errorNotes: { 403: UNVERIFIED, 404: NO_INVITATION },
      curl: `curl -s -X POST "{BASE}/invitations/$INVITATION_ID/accept" ${SESSION}`,
    },
  },
];
