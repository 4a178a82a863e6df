import * as z from 'zod';
import { ROLES } from '#domain/accounts/roles';
import type { AccountChoice } from '#domain/accounts/list-accounts';
import type { Invitation, Member } from '#domain/accounts/ports';
import { MAX_EMAIL_LENGTH } from '#domain/accounts/invitations';
import { successEnvelopeSchema } from './envelope';
import { jsonObject, oneOf, timestamp } from './fields';

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

export const member = z
  .object({
    holder_id: z.string().meta({ description: 'The holder\'s id (the identity provider\'s `sub`).', examples: ['3f1c2a7e-5b9d-4c0e-8a6f-2d4b1e9c7a05'] }),
    email: z.string().meta({ description: 'The holder\'s email address.', examples: ['dev@example.com'] }),
    role,
    joined_at: timestamp('When they joined the account.'),
  })
  .meta({ id: 'Member' });

export const invitation = z
  .object({
    invitation_id: z.string().meta({ description: 'The invitation id (`inv_` + ULID).', examples: ['inv_01M8EN2K7Q4R6T8V0X2Z4B6D8F'] }),
    email: z.string().meta({ description: 'Who is invited: the holder whose verified email this is may accept.', examples: ['new@example.com'] }),
    role,
    invited_by: z.string().meta({ description: 'The holder id of who invited them, or `operator`.' }),
    created_at: timestamp('When the invitation was made.'),
    expires_at: timestamp('When it can no longer be accepted (7 days after it was made).'),
  })
  .meta({ id: 'Invitation' });

export const memberList = z
  .object({
    members: z.array(member).meta({ description: 'Every member, earliest joined first.' }),
    invitations: z.array(invitation).meta({ description: 'Open invitations, newest first.' }),
  })
  .meta({ id: 'MemberList' });
export const memberListResponse = successEnvelopeSchema('MemberListResponse', memberList);
export const memberResponse = successEnvelopeSchema('MemberResponse', member);

export const updateMemberBody = jsonObject({ role: oneOf(ROLES).meta({ description: 'The member\'s new role.' }) });
export const updateMemberRequest = updateMemberBody.meta({ id: 'UpdateMemberRequest' });

/** PATCH and DELETE /account/members/{holder_id}. */
export const holderIdParam = z.object({
  holder_id: z.string().meta({ description: 'The member\'s `holder_id` from `GET /account/members`.', examples: ['3f1c2a7e-5b9d-4c0e-8a6f-2d4b1e9c7a05'] }),
});

export const memberView = (each: Member) => ({ holder_id: each.holderId, email: each.email, role: each.role, joined_at: each.joinedAt });
export const invitationView = (each: Invitation) => ({
  invitation_id: each.invitationId,
  email: each.email,
  role: each.role,
  invited_by: each.invitedBy,
  created_at: each.createdAt,
  expires_at: each.expiresAt,
});
export const memberListView = (members: readonly Member[], invitations: readonly Invitation[]) => ({ members: members.map(memberView), invitations: invitations.map(invitationView) });

/** POST /account/members. */
export const inviteMemberBody = jsonObject({
  email: z
    .string({ error: 'must be a string' })
    .max(MAX_EMAIL_LENGTH, { error: `must be at most ${MAX_EMAIL_LENGTH} characters` })
    .meta({ description: 'The address to invite (case does not matter). Whoever signs in with this address, verified, may accept.', examples: ['dev@example.com'] }),
  role: oneOf(ROLES).meta({ description: 'The role they get on accepting (an admin may not invite an owner).' }),
});
export const inviteMemberRequest = inviteMemberBody.meta({ id: 'InviteMemberRequest' });
export const invitationResponse = successEnvelopeSchema('InvitationResponse', invitation);

/** An invitation as its invitee sees it (GET /invitations): which account it is for. */
export const receivedInvitation = invitation
  .extend({ account_id: z.string().meta({ description: 'The account you are invited to.', examples: ['acc_01M8EKZ4Q9V2H7T3R6N0B5C1DX'] }) })
  .meta({ id: 'ReceivedInvitation' });
export const receivedInvitationList = z
  .object({ invitations: z.array(receivedInvitation).meta({ description: 'Open invitations to your verified email address, newest first.' }) })
  .meta({ id: 'ReceivedInvitationList' });
export const receivedInvitationListResponse = successEnvelopeSchema('ReceivedInvitationListResponse', receivedInvitationList);
export const receivedInvitationListView = (invitations: readonly Invitation[]) => ({ invitations: invitations.map((each) => ({ ...invitationView(each), account_id: each.accountId })) });

/** POST /invitations/{invitation_id}/accept: the account joined, with the role. */
export const accountChoiceResponse = successEnvelopeSchema('AccountMembershipResponse', accountChoice);
export const accountChoiceView = (choice: AccountChoice) => ({ account_id: choice.accountId, role: choice.role });

/** POST /invitations/{invitation_id}/accept and DELETE /account/members/invitations/{invitation_id}. */
export const invitationIdParam = z.object({
  invitation_id: z.string().meta({ description: 'The invitation id (`inv_…`).', examples: ['inv_01M8EN2K7Q4R6T8V0X2Z4B6D8F'] }),
});

export const invitationRevoked = z
  .object({ invitation_id: z.string().meta({ description: 'The invitation revoked.' }), revoked: z.literal(true) })
  .meta({ id: 'InvitationRevoked' });
export const invitationRevokedResponse = successEnvelopeSchema('InvitationRevokedResponse', invitationRevoked);

export const memberRemoved = z
  .object({ holder_id: z.string().meta({ description: 'The member removed.' }), removed: z.literal(true) })
  .meta({ id: 'MemberRemoved' });
export const memberRemovedResponse = successEnvelopeSchema('MemberRemovedResponse', memberRemoved);
