import type { InvitationMail, Mailer } from '#domain/accounts/ports';
import { invitationsPage } from './invitation-text';

/**
 * The mailer where no sender is configured (the local stack; a dev stage without SES): one line
 * in the log instead of a mail, as the local identity server prints its verification codes.
 * Tests read it from the stack's log.
 */
export class LogMailer implements Mailer {
  constructor(
    private readonly consoleUrl: string | undefined,
    private readonly print: (line: string) => void = (line) => console.log(line),
  ) {}

  async sendInvitation(mail: InvitationMail): Promise<void> {
    this.print(
      `mail: invitation for ${mail.to} to join ${mail.accountId} as ${mail.role}, from ${mail.inviterEmail ?? 'the operator'}, until ${mail.expiresAt}: ${invitationsPage(this.consoleUrl)} (a deployed stack sends this with SES)`,
    );
  }
}
