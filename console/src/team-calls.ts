import { ApiError, readEnvelope, type AccountMembership, type MemberList, type MemberRole } from '#client';
import type { Session } from './auth/session';
import { useConsole, type Mode } from './context';

/**
 * The invitation calls of CONTRACT.md "Teams" the TypeScript client does not have yet (its
 * inviteMember, revokeInvitation, listInvitations and acceptInvitation are planned). Same names,
 * same shapes, same headers and errors (ApiError from the envelope, as the client reads it): once
 * the client has them, `teamCalls(...)` becomes `await client()` and nothing else changes.
 */

/** An open invitation of the account (GET /account/members' `invitations`). */
export type Invitation = MemberList['invitations'][number];

/** One of the signed-in holder's open invitations (GET /invitations): the account it is to. */
export type HolderInvitation = Invitation & { account_id: string };

export interface InviteParams {
  email: string;
  role: MemberRole;
}

interface Target {
  session: Session;
  baseUrl: string;
  mode: Mode;
  /** `Vidgen-Account`; undefined: the holder's default. */
  account: string | undefined;
}

export function teamCalls(target: Target) {
  const send = async <T>(method: string, path: string, json?: unknown): Promise<T> => {
    const token = await target.session.token();
    if (!token) throw new ApiError('Your session has ended. Sign in again.', { code: 'unauthorized', status: 401 });
    const what = `${method} ${target.baseUrl}${path}`;
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${target.baseUrl}${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${token}`,
          Accept: 'application/json',
          'Vidgen-Mode': target.mode,
          ...(target.account !== undefined && { 'Vidgen-Account': target.account }),
          ...(json !== undefined && { 'Content-Type': 'application/json' }),
        },
        ...(json !== undefined && { body: JSON.stringify(json) }),
      });
      text = await response.text();
    } catch (error) {
      throw new ApiError(`Could not reach ${what}: ${error instanceof Error ? error.message : String(error)}.`, { code: 'network_error', status: 0, cause: error });
    }
    return readEnvelope(response, text, what) as T;
  };
  return {
    /** POST /account/members: invites `email` as `role` (7 days; inviting again replaces it). */
    inviteMember: (params: InviteParams) => send<Invitation>('POST', '/account/members', params),
    /** DELETE /account/members/invitations/{invitation_id}. */
    revokeInvitation: (invitationId: string) => send<unknown>('DELETE', `/account/members/invitations/${encodeURIComponent(invitationId)}`),
    /** GET /invitations: the signed-in holder's open invitations (matched by their verified email). */
    listInvitations: () => send<{ invitations: HolderInvitation[] }>('GET', '/invitations'),
    /** POST /invitations/{invitation_id}/accept: makes the holder a member of the invitation's account. */
    acceptInvitation: (invitationId: string) => send<AccountMembership>('POST', `/invitations/${encodeURIComponent(invitationId)}/accept`),
  };
}

/** teamCalls on the console's current session, account and mode. */
export function useTeamCalls(): ReturnType<typeof teamCalls> {
  const { session, config, mode, account } = useConsole();
  return teamCalls({ session, baseUrl: config.apiBaseUrl, mode, account });
}
