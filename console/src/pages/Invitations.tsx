import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { ReceivedInvitation } from '#client';
import { DataTable, ErrorNotice, formatTime, Loaded } from '../components';
import { useConsole } from '../context';
import { useAction } from '../queries';
import { navigate } from '../router';

/** The signed-in holder's open invitations, whatever account the console is on. */
export default function Invitations() {
  const { client } = useConsole();
  const list = useQuery({ queryKey: ['invitations'], queryFn: async () => (await (await client()).listInvitations()).invitations });
  return (
    <>
      <h1>Invitations</h1>
      <p className="muted">Invitations to join other accounts, sent to your verified email address. Accepting one adds that account to the switcher at the top.</p>
      <Loaded query={list}>
        {(invitations) =>
          invitations.length === 0 ? (
            <p className="muted">No open invitations.</p>
          ) : (
            <DataTable testId="my-invitations" columns={['Account', 'Role', 'Expires']} actions>
              {invitations.map((invitation) => (
                <InvitationRow key={invitation.invitation_id} invitation={invitation} />
              ))}
            </DataTable>
          )
        }
      </Loaded>
    </>
  );
}

function InvitationRow({ invitation }: { invitation: ReceivedInvitation }) {
  const { client, session, setAccount } = useConsole();
  const queries = useQueryClient();
  const accept = useAction({
    mutationFn: async () => {
      await (await client()).acceptInvitation(invitation.invitation_id);
      // The API reads a holder's accounts once per access token: a new one acts on the new account at once.
      await session.renew();
      await queries.invalidateQueries({ queryKey: ['accounts'] });
    },
    onSuccess: () => {
      setAccount(invitation.account_id);
      navigate('/');
    },
  });
  return (
    <tr data-invitation-id={invitation.invitation_id}>
      <td>
        <code>{invitation.account_id}</code>
      </td>
      <td>{invitation.role}</td>
      <td>{formatTime(invitation.expires_at)}</td>
      <td>
        <button type="button" onClick={() => accept.run()} disabled={accept.isPending}>
          {accept.isPending ? 'Accepting…' : 'Accept'}
        </button>
        <ErrorNotice error={accept.error} />
      </td>
    </tr>
  );
}
