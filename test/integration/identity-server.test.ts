import {
  AdminCreateUserCommand,
  AdminGetUserCommand,
  AdminSetUserPasswordCommand,
  CognitoIdentityProviderClient,
  ConfirmForgotPasswordCommand,
  ConfirmSignUpCommand,
  ForgotPasswordCommand,
  InitiateAuthCommand,
  ResendConfirmationCodeCommand,
  SignUpCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { mkdtempSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { identityAdminCredentials } from '#bin/local-stack/discovery';
import { startIdentityServer, type IdentityServer } from '#bin/local-stack/identity/server';
import { GOOD_PASSWORD } from '#test-support/identity';

/**
 * The local identity server through the AWS SDK's own Cognito client: admin operations need the
 * credentials the stack holds (SigV4, as IAM on AWS), failed passwords and codes lock a name out
 * as Cognito does, and no answer tells which emails have an account. The server's clock is the
 * test's, so a lockout ends when the test says.
 */
let server: IdentityServer;
let dataDir: string;
// Near the wall clock: the SDK signs with it, and a signature more than 15 minutes off is refused.
let now = Date.now();
const codes: Array<{ email: string; code: string; purpose: string }> = [];

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'vidgen-identity-'));
  server = await startIdentityServer({
    host: '127.0.0.1',
    port: 0,
    dataDir: path.join(dataDir, 'identity'),
    region: 'local',
    sendCode: (delivery) => void codes.push(delivery),
    clock: () => now,
  });
});
afterAll(async () => {
  await server.stop();
});

/** One attempt per call: the SDK would otherwise retry LimitExceededException as throttling. */
const clientWith = (credentials = identityAdminCredentials(dataDir)!) =>
  new CognitoIdentityProviderClient({ endpoint: server.endpoint, region: 'local', credentials, maxAttempts: 1 });
const admin = () => clientWith();
/** The error type a call fails with (it must fail). */
async function failure(promise: Promise<unknown>): Promise<{ type: string; message: string }> {
  const error = await promise.then(
    () => undefined,
    (caught: { name: string; message: string }) => caught,
  );
  if (!error) throw new Error('expected the call to fail');
  return { type: error.name, message: error.message };
}
let serial = 0;
const newEmail = () => `holder-${(serial += 1)}-${Date.now()}@example.com`;
async function confirmedHolder(): Promise<string> {
  const email = newEmail();
  await admin().send(new AdminCreateUserCommand({ UserPoolId: server.userPoolId, Username: email, UserAttributes: [{ Name: 'email', Value: email }, { Name: 'email_verified', Value: 'true' }], MessageAction: 'SUPPRESS' }));
  await admin().send(new AdminSetUserPasswordCommand({ UserPoolId: server.userPoolId, Username: email, Password: GOOD_PASSWORD, Permanent: true }));
  return email;
}
const signIn = (email: string, password: string) =>
  clientWith().send(new InitiateAuthCommand({ ClientId: server.clientId, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: email, PASSWORD: password } }));
const lastCode = (email: string) => [...codes].reverse().find((delivery) => delivery.email === email)!.code;
const wrongCodeOf = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe('admin operations', () => {
  it('need the credentials the stack holds, kept in a pool file only its owner can read', async () => {
    expect(statSync(path.join(dataDir, 'identity', 'user-pool.json')).mode & 0o777).toBe(0o600);
    const email = await confirmedHolder();
    const target = { UserPoolId: server.userPoolId, Username: email };
    const takeover = new AdminSetUserPasswordCommand({ ...target, Password: 'Taken-Over-123', Permanent: true });
    const held = identityAdminCredentials(dataDir)!;
    // What the admin CLI and the tests used to send: any key at all.
    expect(await failure(clientWith({ accessKeyId: 'local', secretAccessKey: 'local' }).send(takeover))).toMatchObject({ type: 'UnrecognizedClientException' });
    expect(await failure(clientWith({ accessKeyId: held.accessKeyId, secretAccessKey: 'guessed' }).send(takeover))).toMatchObject({ type: 'InvalidSignatureException' });
    expect(await failure(clientWith({ accessKeyId: 'local', secretAccessKey: 'local' }).send(new AdminGetUserCommand(target)))).toMatchObject({ type: 'UnrecognizedClientException' });
    // Unsigned, as a script on the machine would send it.
    const unsigned = await fetch(`${server.endpoint}/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-amz-json-1.1', 'X-Amz-Target': 'AWSCognitoIdentityProviderService.AdminSetUserPassword' },
      body: JSON.stringify({ ...target, Password: 'Taken-Over-123', Permanent: true }),
    });
    expect([unsigned.status, ((await unsigned.json()) as { __type: string }).__type]).toEqual([400, 'MissingAuthenticationTokenException']);
    // Nothing changed: the holder's own password still signs in.
    expect((await signIn(email, GOOD_PASSWORD)).AuthenticationResult?.AccessToken).toEqual(expect.any(String));
    expect((await admin().send(new AdminGetUserCommand(target))).UserStatus).toBe('CONFIRMED');
  });

  it('leave the public operations open, signed or not (the console and vidgen call them without credentials)', async () => {
    const email = await confirmedHolder();
    const reply = await fetch(`${server.endpoint}/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-amz-json-1.1', 'X-Amz-Target': 'AWSCognitoIdentityProviderService.InitiateAuth' },
      body: JSON.stringify({ ClientId: server.clientId, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: email, PASSWORD: GOOD_PASSWORD } }),
    });
    expect(reply.status).toBe(200);
  });
});

describe('lockout (Cognito: five failures free, then 2^(n-5) s)', () => {
  it('refuses even the right password after five wrong ones, until the lockout is over', async () => {
    const email = await confirmedHolder();
    for (let attempt = 0; attempt < 5; attempt += 1) {
      expect(await failure(signIn(email, `Wrong-Password-${attempt}`))).toEqual({ type: 'NotAuthorizedException', message: 'Incorrect username or password.' });
    }
    expect(await failure(signIn(email, GOOD_PASSWORD))).toEqual({ type: 'NotAuthorizedException', message: 'Password attempts exceeded' });
    now += 1_000;
    // The sixth failure locks for 2 s; attempts during it are refused and not counted.
    expect(await failure(signIn(email, 'Wrong-Password-6'))).toMatchObject({ message: 'Incorrect username or password.' });
    now += 1_999;
    expect(await failure(signIn(email, GOOD_PASSWORD))).toMatchObject({ message: 'Password attempts exceeded' });
    now += 1;
    expect((await signIn(email, GOOD_PASSWORD)).AuthenticationResult?.AccessToken).toEqual(expect.any(String));
    // A success starts the count over.
    expect(await failure(signIn(email, 'Wrong-Password-7'))).toMatchObject({ message: 'Incorrect username or password.' });
    expect((await signIn(email, GOOD_PASSWORD)).AuthenticationResult).toBeDefined();
  });

  it('lets at most five of a burst of concurrent guesses be tried', async () => {
    const email = await confirmedHolder();
    const answers = await Promise.all(Array.from({ length: 20 }, (_, attempt) => failure(signIn(email, `Wrong-Password-${attempt}`))));
    const tried = answers.filter((answer) => answer.message === 'Incorrect username or password.');
    expect(tried.length).toBeLessThanOrEqual(5);
    expect(answers.filter((answer) => answer.message === 'Password attempts exceeded')).toHaveLength(20 - tried.length);
  });

  it('locks an email nobody has just the same, so the lockout tells nothing', async () => {
    const email = newEmail();
    for (let attempt = 0; attempt < 5; attempt += 1) {
      expect(await failure(signIn(email, GOOD_PASSWORD))).toEqual({ type: 'NotAuthorizedException', message: 'Incorrect username or password.' });
    }
    expect(await failure(signIn(email, GOOD_PASSWORD))).toEqual({ type: 'NotAuthorizedException', message: 'Password attempts exceeded' });
  });

  it('refuses even the right reset code after five wrong ones (LimitExceededException), until the lockout is over', async () => {
    const email = await confirmedHolder();
    const client = clientWith();
    await client.send(new ForgotPasswordCommand({ ClientId: server.clientId, Username: email }));
    const code = lastCode(email);
    const reset = (confirmationCode: string) =>
      client.send(new ConfirmForgotPasswordCommand({ ClientId: server.clientId, Username: email, ConfirmationCode: confirmationCode, Password: 'Reset-Password-42' }));
    for (let attempt = 0; attempt < 5; attempt += 1) expect(await failure(reset(wrongCodeOf(code)))).toMatchObject({ type: 'CodeMismatchException' });
    expect(await failure(reset(code))).toEqual({ type: 'LimitExceededException', message: 'Attempt limit exceeded, please try after some time.' });
    now += 1_000;
    await reset(code);
    expect((await signIn(email, 'Reset-Password-42')).AuthenticationResult).toBeDefined();
  });

  it('counts wrong sign-up codes the same way', async () => {
    const email = newEmail();
    const client = clientWith();
    await client.send(new SignUpCommand({ ClientId: server.clientId, Username: email, Password: GOOD_PASSWORD, UserAttributes: [{ Name: 'email', Value: email }] }));
    const confirm = (code: string) => client.send(new ConfirmSignUpCommand({ ClientId: server.clientId, Username: email, ConfirmationCode: code }));
    const code = lastCode(email);
    for (let attempt = 0; attempt < 5; attempt += 1) expect(await failure(confirm(wrongCodeOf(code)))).toMatchObject({ type: 'CodeMismatchException' });
    expect(await failure(confirm(code))).toMatchObject({ type: 'LimitExceededException' });
    now += 1_000;
    await confirm(code);
    expect((await signIn(email, GOOD_PASSWORD)).AuthenticationResult).toBeDefined();
  });
});

describe('user existence (PreventUserExistenceErrors)', () => {
  it('ConfirmSignUp answers an unknown email, a confirmed holder and a wrong code alike', async () => {
    const client = clientWith();
    const confirm = (email: string) => failure(client.send(new ConfirmSignUpCommand({ ClientId: server.clientId, Username: email, ConfirmationCode: '123456' })));
    const pending = newEmail();
    await client.send(new SignUpCommand({ ClientId: server.clientId, Username: pending, Password: GOOD_PASSWORD, UserAttributes: [{ Name: 'email', Value: pending }] }));
    const answers = await Promise.all([confirm(newEmail()), confirm(await confirmedHolder()), confirm(pending)]);
    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
    expect(answers[0]).toEqual({ type: 'CodeMismatchException', message: 'Invalid verification code provided, please try again.' });
  });

  it('ResendConfirmationCode "sends" a code to an unknown email and to a confirmed holder, sending nothing', async () => {
    const client = clientWith();
    const resend = (email: string) => client.send(new ResendConfirmationCodeCommand({ ClientId: server.clientId, Username: email }));
    const before = codes.length;
    const unknown = newEmail();
    const confirmed = await confirmedHolder();
    const [a, b] = [await resend(unknown), await resend(confirmed)];
    expect(a.CodeDeliveryDetails).toEqual({ Destination: `${unknown[0]}***@e***`, DeliveryMedium: 'EMAIL', AttributeName: 'email' });
    expect(b.CodeDeliveryDetails).toEqual({ Destination: `${confirmed[0]}***@e***`, DeliveryMedium: 'EMAIL', AttributeName: 'email' });
    expect(codes.length).toBe(before);
  });
});
