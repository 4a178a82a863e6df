import { httpUrl, readGroup, setting, text, type Env } from './setting';

/**
 * The service's own mail (invitations, issue 36). Without a sender the mail is a line in the
 * function's log (the local stack; a dev stage without SES); with one, SES sends it.
 */
export const MAIL = {
  // Set by the deploy's bindMail from context `mailFromAddress` (lib/settings.ts), with the SES grant.
  from: setting({ variable: 'MAIL_FROM', kind: text, doc: 'The address invitations are sent from, verified in SES (unset: the mail is printed in the log instead).' }),
  consoleUrl: setting({ variable: 'CONSOLE_URL', kind: httpUrl, doc: "The console's address, for the link in an invitation (its Invitations page)." }),
  configurationSet: setting({ variable: 'MAIL_CONFIGURATION_SET', kind: text, doc: 'An SES configuration set for the mail (bounce and complaint events); unset: none.' }),
};

export interface MailConfig {
  from?: string;
  consoleUrl?: string;
  configurationSet?: string;
}

export const mailConfig = (env: Env = process.env): MailConfig => {
  const { from, consoleUrl, configurationSet } = readGroup(MAIL, env);
  return { ...(from && { from }), ...(consoleUrl && { consoleUrl }), ...(configurationSet && { configurationSet }) };
};
