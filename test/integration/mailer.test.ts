import { LogMailer } from '#adapters/mail/log-mailer';
import { SesMailer } from '#adapters/mail/ses-mailer';
import { invite, listAccountInvitations } from '#domain/accounts/invitations';
import { newHolderAccount } from '#domain/accounts/holder';
import type { InvitationMail } from '#domain/accounts/ports';
import { newAccountId } from '#domain/shared/ids';
import { createMemoryStores } from '#test-support/memory-stores';
import { startFakeSes, type FakeSes } from '#test-support/fake-ses';

/**
 * The invitation mailers: SES v2 SendEmail against a fake of its API on 127.0.0.1
 * (test/support/fake-ses.ts, from the API reference), and the log line the local stack prints.
 */
const MAIL: InvitationMail = { to: 'bob@example.com', accountId: 'acc_01M8EKZ4Q9V2H7T3R6N0B5C1DX', role: 'developer', inviterEmail: 'alice@example.com', expiresAt: '2026-12-04T14:03:11.482Z' };
let ses: FakeSes;
const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };

beforeAll(async () => {
  ses = await startFakeSes();
  // The SDK signs every request: any credentials do for the fake.
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'fake-secret' });
});
afterAll(async () => {
  await ses.close();
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: saved.id, AWS_SECRET_ACCESS_KEY: saved.secret });
});

const sesMailer = (configurationSetName?: string) =>
  new SesMailer({ from: 'invites@vidgen.example', consoleUrl: 'https://console.vidgen.example/', region: 'eu-west-1', endpoint: ses.endpoint, ...(configurationSetName && { configurationSetName }) });

describe('SesMailer', () => {
  it('sends one plain-text mail from MAIL_FROM to the invitee: who invites, the account, the role, the expiry and the Invitations page', async () => {
    await sesMailer('vidgen-mail').sendInvitation(MAIL);
    const sent = ses.sent.at(-1)!;
    expect([sent.FromEmailAddress, sent.Destination.ToAddresses, sent.ConfigurationSetName]).toEqual(['invites@vidgen.example', ['bob@example.com'], 'vidgen-mail']);
    expect(sent.Content.Simple.Subject).toEqual({ Data: 'alice@example.com invited you to join a vidgen account as developer', Charset: 'UTF-8' });
    const text = sent.Content.Simple.Body.Text!.Data;
    for (const part of [MAIL.accountId, 'as developer', MAIL.expiresAt, 'https://console.vidgen.example/invitations', 'bob@example.com']) expect(text).toContain(part);
    expect(sent.Content.Simple.Body.Html).toBeUndefined();
  });

  it('fails with SES\'s error when SES refuses the message (MessageRejected, 400: not retried)', async () => {
    const before = ses.sent.length;
    ses.failNext({ type: 'MessageRejected', status: 400, message: 'Email address is not verified.' });
    await expect(sesMailer().sendInvitation(MAIL)).rejects.toMatchObject({ name: 'MessageRejected', message: 'Email address is not verified.' });
    expect(ses.sent).toHaveLength(before);
  });

  it('is retried by the SDK when throttled (TooManyRequestsException, 429), then sent', async () => {
    const before = ses.sent.length;
    ses.failNext({ type: 'TooManyRequestsException', status: 429, message: 'Maximum sending rate exceeded.' });
    await sesMailer().sendInvitation(MAIL);
    expect(ses.sent).toHaveLength(before + 1);
  });

  it('a refused mail after the invitation is stored leaves it open: logged, counted, answered with the invitation', async () => {
    const stores = createMemoryStores();
    const account = newHolderAccount(newAccountId(), 0, new Date().toISOString());
    await stores.holders.createWithAccount({ holderId: 'h-a', accountId: account.accountId, email: 'alice@example.com', createdAt: account.createdAt }, account);
    const logged: string[] = [];
    const counted: string[] = [];
    ses.failNext({ type: 'SendingPausedException', status: 400, message: 'Sending is paused for this account.' });
    const deps = { team: stores.team, invitations: stores.invitations, mailer: sesMailer(), clock: () => new Date(), telemetry: { error: (message: string, error: unknown) => void logged.push(`${message}: ${(error as Error).name}`), count: (event: string) => void counted.push(event) } };
    const invitation = await invite(deps, { accountId: account.accountId, actor: { holderId: 'h-a', role: 'owner' }, email: 'bob@example.com', role: 'viewer' }, { actor: { type: 'holder', id: 'h-a', email: 'alice@example.com' }, origin: { ip: null, userAgent: null } });
    expect([logged, counted]).toEqual([['invitation mail not sent: SendingPausedException'], ['InvitationMailFailed']]);
    expect(await listAccountInvitations(deps, account.accountId)).toEqual([invitation]);
  });
});

describe('LogMailer', () => {
  it('prints one line naming the invitee, account, role, inviter, expiry and the Invitations page', async () => {
    const lines: string[] = [];
    await new LogMailer('http://127.0.0.1:3000/console', (line) => lines.push(line)).sendInvitation(MAIL);
    expect(lines).toEqual([
      `mail: invitation for bob@example.com to join ${MAIL.accountId} as developer, from alice@example.com, until ${MAIL.expiresAt}: http://127.0.0.1:3000/console/invitations (a deployed stack sends this with SES)`,
    ]);
  });
});
