import type { InvitationMail } from '#domain/accounts/ports';

/** Where an invitee accepts: the console's Invitations page (no token in it: acceptance is bound to the verified address). */
export const invitationsPage = (consoleUrl: string | undefined): string => (consoleUrl ? `${consoleUrl.replace(/\/+$/, '')}/invitations` : "the console's Invitations page");

/** The invitation mail's subject and plain-text body: who invites, to which account, as what, until when, and where to accept. */
export function invitationText(mail: InvitationMail, consoleUrl: string | undefined): { subject: string; body: string } {
  const from = mail.inviterEmail ?? 'The vidgen operator';
  return {
    subject: `${from} invited you to join a vidgen account as ${mail.role}`,
    body: [
      `${from} invited you to join the vidgen account ${mail.accountId} as ${mail.role}.`,
      '',
      `Sign in (or sign up) with this address, ${mail.to}, and accept it on ${invitationsPage(consoleUrl)}`,
      `The invitation is open until ${mail.expiresAt}.`,
      '',
      'If you did not expect it, ignore this mail: nothing happens unless you accept.',
    ].join('\n'),
  };
}
