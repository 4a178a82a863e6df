import type { InvitationDeps } from '#domain/accounts/invitations';
import { powertoolsTelemetry } from '#observability/telemetry';
import { mailer } from './mail';
import { stores } from './stores';

/** What inviting needs: the team and invitation stores, the mailer, and telemetry for a mail that fails. */
export function invitationDeps(): InvitationDeps {
  const { team, invitations, clock } = stores();
  return { team, invitations, mailer: mailer(), telemetry: powertoolsTelemetry, clock };
}
