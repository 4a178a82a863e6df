import { LogMailer } from '#adapters/mail/log-mailer';
import { SesMailer } from '#adapters/mail/ses-mailer';
import { mailConfig } from '#config/mail';
import type { Mailer } from '#domain/accounts/ports';
import { appRegion } from './config';

let current: Mailer | undefined;

/** The service's mailer, built once per cold start: SES from MAIL_FROM when set, else a line in the log. */
export function mailer(): Mailer {
  if (!current) {
    const { from, consoleUrl, configurationSet } = mailConfig();
    current = from
      ? new SesMailer({ from, region: appRegion(), ...(consoleUrl && { consoleUrl }), ...(configurationSet && { configurationSetName: configurationSet }) })
      : new LogMailer(consoleUrl);
  }
  return current;
}
