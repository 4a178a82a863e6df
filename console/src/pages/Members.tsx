import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { Invitation, Member, MemberRole } from '#client';
import { createdByLabel, rolesOffered } from '../accounts';
import { DataTable, ErrorNotice, FocusedNotice, formatTime, Loaded, Section } from '../components';
import { useConsole } from '../context';
import { useAction } from '../queries';

/** The account's members and open invitations (an owner's or admin's page). */
export default function Members() {
  const { client, account } = useConsole();
  const queries = useQueryClient();
  // Read on every opening: members join by accepting elsewhere, and invitations are made by other admins.
  const list = useQuery({ queryKey: ['members'], queryFn: async () => (await client()).listMembers(), refetchOnMount: 'always' });
  const [removed, setRemoved] = useState<Member>();
  // A role change may be the holder's own: the switcher and the navigation read GET /accounts again.
  const refresh = () => Promise.all([['members'], ['accounts']].map((queryKey) => queries.invalidateQueries({ queryKey })));

  return (
    <>
      <h1>Members</h1>
      <p className="muted">
        Who may use {account ? <code>{account}</code> : 'this account'} in the console, and what each may do. API keys are not tied to a member: a removed
        member's keys keep working until they are revoked.
      </p>
      <Invite onInvited={() => void queries.invalidateQueries({ queryKey: ['members'] })} />
      {removed && <RemovedMember key={removed.holder_id} member={removed} onDone={() => setRemoved(undefined)} />}
      <Loaded query={list}>
        {({ members, invitations }) => (
          <>
            <Section title="Members">
              <DataTable testId="members" columns={['Email', 'Role', 'Joined']} actions>
                {members.map((member) => (
                  <MemberRow
                    key={member.holder_id}
                    member={member}
                    onChanged={() => void refresh()}
                    onRemoved={() => {
                      setRemoved(member);
                      void refresh();
                    }}
                  />
                ))}
              </DataTable>
            </Section>
            <Section title="Open invitations">
              {invitations.length === 0 ? (
                <p className="muted">No open invitations.</p>
              ) : (
                <DataTable testId="invitations" columns={['Email', 'Role', 'Invited by', 'Expires']} actions>
                  {invitations.map((invitation) => (
                    <InvitationRow key={invitation.invitation_id} invitation={invitation} members={members} onRevoked={() => void queries.invalidateQueries({ queryKey: ['members'] })} />
                  ))}
                </DataTable>
              )}
            </Section>
          </>
        )}
      </Loaded>
    </>
  );
}

function Invite({ onInvited }: { onInvited: () => void }) {
  const { client, role } = useConsole();
  const [email, setEmail] = useState('');
  const [invitedRole, setInvitedRole] = useState<MemberRole>('developer');
  const invite = useAction({
    mutationFn: async () => (await client()).inviteMember({ email: email.trim(), role: invitedRole }),
    onSuccess: () => {
      setEmail('');
      onInvited();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    invite.run();
  };
  return (
    <Section title="Invite someone">
      <form className="stack" onSubmit={submit}>
        <p className="muted">
          They get an email with a link to the console. Once signed in with that address (verified), they accept on their Invitations page. An invitation
          lasts 7 days; inviting the same address again replaces it.
        </p>
        <div className="row">
          <label>
            Email
            <input type="email" name="invite-email" required maxLength={254} value={email} onChange={(event) => setEmail(event.target.value)} />
          </label>
          <label>
            Role
            <select name="invite-role" value={invitedRole} onChange={(event) => setInvitedRole(event.target.value as MemberRole)}>
              {rolesOffered(role).map((each) => (
                <option key={each} value={each}>
                  {each}
                </option>
              ))}
            </select>
          </label>
        </div>
        <button type="submit" disabled={invite.isPending || !email.trim()}>
          {invite.isPending ? 'Inviting…' : 'Invite'}
        </button>
        {invite.isSuccess && !invite.isPending && (
          <p className="notice ok" role="status">
            Invited {invite.data.email} as {invite.data.role}, until {formatTime(invite.data.expires_at)}.
          </p>
        )}
        <ErrorNotice error={invite.error} />
      </form>
    </Section>
  );
}

function MemberRow({ member, onChanged, onRemoved }: { member: Member; onChanged: () => void; onRemoved: () => void }) {
  const { client, role } = useConsole();
  const [confirming, setConfirming] = useState(false);
  const update = useAction({ mutationFn: async (next: MemberRole) => (await client()).updateMember(member.holder_id, { role: next }), onSuccess: onChanged });
  const remove = useAction({ mutationFn: async () => (await client()).removeMember(member.holder_id), onSuccess: onRemoved });
  // An admin neither makes nor changes owners (the API says so too): an owner's row offers owner still.
  const offered = rolesOffered(role);
  const choices = offered.includes(member.role) ? offered : [member.role, ...offered];
  return (
    <tr data-holder-id={member.holder_id}>
      <td>{member.email}</td>
      <td>
        <select
          aria-label={`Role of ${member.email}`}
          value={member.role}
          disabled={update.isPending}
          onChange={(event) => update.run(event.target.value as MemberRole)}
        >
          {choices.map((each) => (
            <option key={each} value={each}>
              {each}
            </option>
          ))}
        </select>
        <ErrorNotice error={update.error} />
      </td>
      <td>{formatTime(member.joined_at)}</td>
      <td>
        {confirming ? (
          <div className="row">
            <button type="button" className="danger" onClick={() => remove.run()} disabled={remove.isPending}>
              Yes, remove {member.email}
            </button>
            <button type="button" className="secondary" onClick={() => setConfirming(false)} disabled={remove.isPending}>
              Keep
            </button>
          </div>
        ) : (
          <button type="button" className="secondary" onClick={() => setConfirming(true)}>
            Remove
          </button>
        )}
        <ErrorNotice error={remove.error} />
      </td>
    </tr>
  );
}

function InvitationRow({ invitation, members, onRevoked }: { invitation: Invitation; members: readonly Member[]; onRevoked: () => void }) {
  const { client } = useConsole();
  const revoke = useAction({ mutationFn: async () => (await client()).revokeInvitation(invitation.invitation_id), onSuccess: onRevoked });
  return (
    <tr data-invitation-id={invitation.invitation_id}>
      <td>{invitation.email}</td>
      <td>{invitation.role}</td>
      <td>{createdByLabel(invitation.invited_by, members)}</td>
      <td>{formatTime(invitation.expires_at)}</td>
      <td>
        <button type="button" className="secondary" onClick={() => revoke.run()} disabled={revoke.isPending}>
          Revoke
        </button>
        <ErrorNotice error={revoke.error} />
      </td>
    </tr>
  );
}

/** After a removal: the keys the member made still work; offered to revoke them here. */
function RemovedMember({ member, onDone }: { member: Member; onDone: () => void }) {
  const { client } = useConsole();
  const queries = useQueryClient();
  const keys = useQuery({ queryKey: ['keys'], queryFn: async () => (await client()).listKeys() });
  const theirs = (keys.data?.keys ?? []).filter((key) => key.created_by === member.holder_id && key.revoked_at === null);
  const revoke = useAction({
    mutationFn: async () => {
      const api = await client();
      for (const key of theirs) await api.revokeKey(key.key_id);
    },
    onSettled: () => queries.invalidateQueries({ queryKey: ['keys'] }),
  });
  return (
    <FocusedNotice testId="member-removed">
      <strong>{member.email} is no longer a member.</strong>
      <Loaded query={keys}>
        {() =>
          theirs.length === 0 ? (
            <p>{revoke.isSuccess ? 'Their keys are revoked.' : 'No working API key was made by them.'}</p>
          ) : (
            <p>
              {theirs.length === 1 ? 'One API key they made still works' : `${theirs.length} API keys they made still work`}: {theirs.map((key) => key.name).join(', ')}.{' '}
              <button type="button" className="danger" onClick={() => revoke.run()} disabled={revoke.isPending}>
                {revoke.isPending ? 'Revoking…' : theirs.length === 1 ? 'Revoke it' : 'Revoke them'}
              </button>
            </p>
          )
        }
      </Loaded>
      <ErrorNotice error={revoke.error} />
      <button type="button" className="secondary" onClick={onDone}>
        Close
      </button>
    </FocusedNotice>
  );
}
