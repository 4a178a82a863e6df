import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import type { InvitationMail, Mailer } from '#domain/accounts/ports';
import { boundedClientConfig, CONTROL_PLANE_BOUNDS } from '../aws-client-options';
import { invitationText } from './invitation-text';

export interface SesMailerSettings {
  /** The verified sender (MAIL_FROM): the IAM grant is conditioned on it (ses:FromAddress). */
  from: string;
  consoleUrl?: string;
  region: string;
  configurationSetName?: string;
  /** Another SES endpoint (tests). */
  endpoint?: string;
}

/** The service's mail through Amazon SES (API v2 SendEmail, a simple text message). */
export class SesMailer implements Mailer {
  private readonly client: SESv2Client;

  constructor(
    private readonly settings: SesMailerSettings,
    client?: SESv2Client,
  ) {
    this.client = client ?? new SESv2Client({ region: settings.region, ...(settings.endpoint && { endpoint: settings.endpoint }), ...boundedClientConfig(CONTROL_PLANE_BOUNDS) });
  }

  async sendInvitation(mail: InvitationMail): Promise<void> {
    const { subject, body } = invitationText(mail, this.settings.consoleUrl);
    await this.client.send(
      new SendEmailCommand({
        FromEmailAddress: this.settings.from,
        Destination: { ToAddresses: [mail.to] },
        Content: { Simple: { Subject: { Data: subject, Charset: 'UTF-8' }, Body: { Text: { Data: body, Charset: 'UTF-8' } } } },
        ...(this.settings.configurationSetName && { ConfigurationSetName: this.settings.configurationSetName }),
      }),
    );
  }
}
