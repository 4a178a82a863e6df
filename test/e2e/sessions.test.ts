import { AdminDeleteUserCommand, AdminDisableUserCommand, AdminGetUserCommand, ConfirmSignUpCommand, GlobalSignOutCommand, InitiateAuthCommand, SignUpCommand } from '@aws-sdk/client-cognito-identity-provider';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalStack } from '#bin/local-stack/stack';
import { createAccount } from '#domain/accounts/account-admin';
import { addMember } from '#domain/accounts/members';
import { OPERATOR_STAMP } from '#domain/shared/audit';
import { awaitRoomInWindow, call, startTestApi } from '#test-support/local-api';
import { runScript } from '#test-support/run-script';
import { claimsOf, GOOD_PASSWORD, identityClient, jwt, poolSigningKey, signedInHolder, strangerKey } from '#test-support/identity';

/**
 * Sessions end to end on the local stack: the local identity server issues the tokens, the
 * local gateway runs the authorizer with API Gateway's cache, and the table is DynamoDB Local.
 */
let stack: LocalStack;
const RATE_LIMIT = 20;

beforeAll(async () => {
  // The authorizer cache on, as deployed: a session's mode must not be baked into its answer.
  stack = await startTestApi({ AUTH_CACHE_TTL_SECONDS: '300', DEFAULT_RATE_LIMIT: String(RATE_LIMIT) });
});
afterAll(async () => {
  await stack.stop();
});

const get = (token: string, path: string, headers: Record<string, string> = {}) => call<any>(stack.baseUrl, path, { key: token, headers });

/** A new access token for a holder signedInHolder made: a new authorization, not the cached one. */
async function signInAgain(email: string): Promise<string> {
  const client = identityClient(stack);
  try {
    const auth = await client.send(new InitiateAuthCommand({ ClientId: stack.identity.clientId, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: email, PASSWORD: GOOD_PASSWORD } }));
    return auth.AuthenticationResult!.AccessToken!;
  } finally {
    client.destroy();
  }
}

/** Items of one type in the stack's table (accounts, holders). */
async function countItems(type: 'account' | 'holder'): Promise<number> {
  const { Items } = await stack.context.db.doc.send(
    new ScanCommand({ TableName: stack.context.db.tableName, FilterExpression: '#type = :type', ExpressionAttributeNames: { '#type': 'type' }, ExpressionAttributeValues: { ':type': type }, ConsistentRead: true }),
  );
  return Items?.length ?? 0;
}

describe('sessions', () => {
  it("open the holder's account on the first sign-in: GET /account with both balances and the email", async () => {
    const holder = await signedInHolder(stack);
    const reply = await get(holder.accessToken, '/account');
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({
      account_id: expect.stringMatching(/^acc_/),
      email: holder.email,
      created_at: expect.any(String),
      live: { credits: 0 },
      test: { credits: 1000 },
      paid_access: false,
      subscription_status: 'none',
      output_retention_days: null,
    });
    expect(await stack.context.holders.get(holder.holderId)).toMatchObject({ accountId: reply.body.data.account_id, email: holder.email });
    // Signing in again acts on the same account.
    expect((await get(holder.accessToken, '/account')).body.data.account_id).toBe(reply.body.data.account_id);
  });

  it('pick their mode per request with Vidgen-Mode, under one cached authorization', async () => {
    const holder = await signedInHolder(stack);
    expect((await get(holder.accessToken, '/credits')).body.data.credits).toBe(0);
    // The same token, answered from the authorizer cache: the header still decides.
    expect((await get(holder.accessToken, '/credits', { 'Vidgen-Mode': 'test' })).body.data.credits).toBe(1000);
    const started = await call<any>(stack.baseUrl, '/generate', {
      method: 'POST',
      key: holder.accessToken,
      headers: { 'Vidgen-Mode': 'test', 'Content-Type': 'application/json' },
      body: JSON.stringify({ prompt: 'sim:stall a test kite', duration: 4 }),
    });
    expect(started.status).toBe(200);
    expect(started.body.data.livemode).toBe(false);
    expect((await get(holder.accessToken, '/credits', { 'Vidgen-Mode': 'test' })).body.data.credits).toBe(980);
    expect((await get(holder.accessToken, '/credits', { 'Vidgen-Mode': 'live' })).body.data.credits).toBe(0);
    // A live start has no credits to spend: the live balance is the one charged.
    const live = await call<any>(stack.baseUrl, '/generate', {
      method: 'POST',
      key: holder.accessToken,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ prompt: 'a live kite', duration: 4 }),
    });
    expect(live.body.error?.code).toBe('insufficient_credits');
    expect((await get(holder.accessToken, '/videos', { 'Vidgen-Mode': 'test' })).body.data.videos).toHaveLength(1);
    expect((await get(holder.accessToken, '/videos')).body.data.videos).toHaveLength(0);
  });

  it('act on the account Vidgen-Account picks, only among their own, with their role there, under one cached authorization (issue 36)', async () => {
    const holder = await signedInHolder(stack);
    const own = (await get(holder.accessToken, '/account')).body.data.account_id as string;
    const { account: other } = await createAccount(stack.context, { credits: 42 });
    await addMember(stack.context.team, { accountId: other.accountId, holderId: holder.holderId, email: holder.email, role: 'viewer' }, OPERATOR_STAMP, stack.context.clock());
    // GET /accounts reads afresh; the authorizer's answer for this token is cached (TTL 300 s) with the old list.
    expect((await get(holder.accessToken, '/accounts')).body.data).toEqual({ accounts: [{ account_id: own, role: 'owner' }, { account_id: other.accountId, role: 'viewer' }] });
    const stale = await get(holder.accessToken, '/account', { 'Vidgen-Account': other.accountId });
    expect([stale.status, stale.body.error]).toEqual([403, { code: 'forbidden', message: `You are not a member of ${other.accountId}.` }]);

    // A new token is a new authorization: the new list.
    const token = await signInAgain(holder.email);
    // Few requests: the holder's rate limit here is 20 a minute.
    for (let round = 0; round < 1; round += 1) {
      for (const [accountId, credits] of [[own, 0], [other.accountId, 42]] as const) {
        const reply = await get(token, '/account', { 'Vidgen-Account': accountId });
        expect([reply.status, reply.body.data.account_id, reply.body.data.live.credits]).toEqual([200, accountId, credits]);
      }
      // No header: the default, the account they own.
      expect((await get(token, '/account')).body.data.account_id).toBe(own);
    }
    expect((await get(token, '/credits', { 'Vidgen-Account': other.accountId, 'Vidgen-Mode': 'test' })).body.data.credits).toBe(1000);

    // A viewer there: reads, and nothing more, each 403 naming a role that may.
    const generate = await call<any>(stack.baseUrl, '/generate', {
      method: 'POST',
      key: token,
      headers: { 'Vidgen-Account': other.accountId, 'Content-Type': 'application/json' },
      body: JSON.stringify({ prompt: 'a kite', duration: 4 }),
    });
    expect([generate.status, generate.body.error]).toEqual([403, { code: 'forbidden', message: `Your role in ${other.accountId} (viewer) may not generate; a role that may: owner, admin, developer.` }]);
    const key = await call<any>(stack.baseUrl, '/keys', { method: 'POST', key: token, headers: { 'Vidgen-Account': other.accountId, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'x' }) });
    expect([key.status, key.body.error?.message]).toEqual([403, `Your role in ${other.accountId} (viewer) may not manage API keys; a role that may: owner, admin, developer.`]);
    expect((await stack.context.apiKeys.listForAccount(other.accountId)).filter((each) => each.createdBy === holder.holderId)).toEqual([]);

    // An account they do not belong to: 403 everywhere but their own routes; a malformed header: 400.
    const { account: stranger } = await createAccount(stack.context, { credits: 5 });
    for (const path of ['/account', '/keys']) {
      const reply = await get(token, path, { 'Vidgen-Account': stranger.accountId });
      expect([path, reply.status, reply.body.error]).toEqual([path, 403, { code: 'forbidden', message: `You are not a member of ${stranger.accountId}.` }]);
    }
    expect((await get(token, '/accounts', { 'Vidgen-Account': stranger.accountId })).status).toBe(200);
    const bad = await get(token, '/account', { 'Vidgen-Account': 'acc_nope' });
    expect([bad.status, bad.body.error]).toEqual([400, { code: 'validation_error', message: expect.stringMatching(/^Vidgen-Account: must be an account id/) }]);
    // An API key ignores the header: its own account.
    const { key: otherKey } = await createAccount(stack.context, { credits: 3 });
    expect((await get(otherKey.apiKey, '/account', { 'Vidgen-Account': other.accountId })).body.data.live.credits).toBe(3);
    expect((await get(otherKey.apiKey, '/accounts')).status).toBe(403);
  });

  it('answer Vidgen-Mode other than live or test with 400 naming the header; an API key ignores it', async () => {
    const holder = await signedInHolder(stack);
    for (const mode of ['prod', 'LIVE', '']) {
      const reply = await get(holder.accessToken, '/account', { 'Vidgen-Mode': mode });
      expect(reply.status).toBe(400);
      expect(reply.body.error).toEqual({ code: 'validation_error', message: expect.stringMatching(/^Vidgen-Mode: must be "live" or "test"/) });
    }
    // With a key, the key's own mode applies whatever the header says.
    const { key } = await createAccount(stack.context, { credits: 7 });
    const keyed = await get(key.apiKey, '/account', { 'Vidgen-Mode': 'test' });
    expect(keyed.body.data).toMatchObject({ email: null, live: { credits: 7 }, test: { credits: 1000 } });
    expect((await get(key.apiKey, '/credits', { 'Vidgen-Mode': 'test' })).body.data.credits).toBe(7);
  });

  it('make one account of ten concurrent first requests', async () => {
    const holder = await signedInHolder(stack);
    const accountsBefore = await countItems('account');
    const replies = await Promise.all(Array.from({ length: 10 }, () => get(holder.accessToken, '/account')));
    expect(replies.map((reply) => reply.status)).toEqual(Array(10).fill(200));
    expect(new Set(replies.map((reply) => reply.body.data.account_id)).size).toBe(1);
    // One live account and its test balance; nothing else.
    expect(await countItems('account')).toBe(accountsBefore + 2);
    // And the holder is its one owner (issue 36).
    expect((await stack.context.holders.withMemberships(holder.holderId))?.memberships).toEqual([
      { accountId: replies[0]!.body.data.account_id, role: 'owner', joinedAt: expect.any(String) },
    ]);
  });

  it('adopt a holder recorded before teams as the owner of their account on their next sign-in (issue 36)', async () => {
    const holder = await signedInHolder(stack);
    const { account } = await createAccount(stack.context, { credits: 9 });
    // As the holder repository wrote a holder before teams: the item alone, no membership.
    await stack.context.db.doc.send(
      new PutCommand({
        TableName: stack.context.db.tableName,
        Item: { pk: `HOLDER#${holder.holderId}`, sk: 'HOLDER', type: 'holder', holder_id: holder.holderId, account_id: account.accountId, email: holder.email, created_at: account.createdAt },
      }),
    );
    const replies = await Promise.all([1, 2, 3].map(() => get(holder.accessToken, '/account')));
    expect(replies.map((reply) => [reply.status, reply.body.data.account_id, reply.body.data.live.credits])).toEqual(Array(3).fill([200, account.accountId, 9]));
    expect(await stack.context.holders.withMemberships(holder.holderId)).toEqual({
      holder: expect.objectContaining({ holderId: holder.holderId, accountId: account.accountId, teamsAt: expect.any(String) }),
      memberships: [{ accountId: account.accountId, role: 'owner', joinedAt: expect.any(String) }],
    });
  });

  it('are rate limited per holder, across both modes, with the default limit', async () => {
    const holder = await signedInHolder(stack);
    await awaitRoomInWindow(20);
    const replies = [];
    for (let i = 0; i < RATE_LIMIT + 1; i += 1) replies.push(await get(holder.accessToken, '/credits', { 'Vidgen-Mode': i % 2 ? 'test' : 'live' }));
    expect(replies.slice(0, RATE_LIMIT).every((reply) => reply.status === 200)).toBe(true);
    expect(replies[0]!.headers.get('x-ratelimit-limit')).toBe(String(RATE_LIMIT));
    expect(replies[RATE_LIMIT]!.status).toBe(429);
    // Another holder has a window of their own.
    expect((await get((await signedInHolder(stack)).accessToken, '/credits')).status).toBe(200);
  });

  it('sign up with a code printed in the local stack\'s log, then sign in', async () => {
    const client = identityClient(stack);
    const logged: string[] = [];
    const log = jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void logged.push(args.join(' ')));
    try {
      const email = `new-${Date.now()}@example.com`;
      await client.send(new SignUpCommand({ ClientId: stack.identity.clientId, Username: email, Password: GOOD_PASSWORD, UserAttributes: [{ Name: 'email', Value: email }] }));
      const line = logged.find((entry) => entry.includes(email))!;
      const code = /: (\d{6}) /.exec(line)![1]!;
      await client.send(new ConfirmSignUpCommand({ ClientId: stack.identity.clientId, Username: email, ConfirmationCode: code }));
    } finally {
      log.mockRestore();
      client.destroy();
    }
  });
});

describe('tokens that are not a live session', () => {
  let holder: Awaited<ReturnType<typeof signedInHolder>>;
  let valid: Record<string, unknown>;
  let pool: ReturnType<typeof poolSigningKey>;
  let before: { accounts: number; holders: number };

  beforeAll(async () => {
    // A holder who never called the API: any account would be made by one of these requests.
    holder = await signedInHolder(stack);
    valid = claimsOf(holder.accessToken);
    pool = poolSigningKey(stack);
    before = { accounts: await countItems('account'), holders: await countItems('holder') };
  });

  const header = () => ({ alg: 'RS256', kid: pool.kid });
  const now = () => Math.floor(Date.now() / 1000);

  it.each<[string, () => string]>([
    ['a forged token (claims changed after signing)', () => {
      const [head, , signature] = holder.accessToken.split('.');
      return `${head}.${Buffer.from(JSON.stringify({ ...valid, sub: 'someone-else' })).toString('base64url')}.${signature}`;
    }],
    ['alg none', () => jwt({ alg: 'none', kid: pool.kid }, valid)],
    ['a token signed by another key under the pool\'s key id', () => jwt(header(), valid, strangerKey())],
    ['a token signed by another key under its own key id', () => jwt({ alg: 'RS256', kid: 'stranger' }, valid, strangerKey())],
    ['an expired token', () => jwt(header(), { ...valid, iat: now() - 7200, exp: now() - 3600 }, pool.key)],
    ['a token from another issuer', () => jwt(header(), { ...valid, iss: 'https://cognito-idp.us-east-1.amazonaws.com/us-east-1_other' }, pool.key)],
    ['a token for another client', () => jwt(header(), { ...valid, client_id: 'anotherclient' }, pool.key)],
    ['an ID token', () => holder.idToken],
    ['a refresh token', () => holder.refreshToken],
  ])('%s: 401, nothing created', async (_, token) => {
    const reply = await get(token(), '/account');
    expect(reply.status).toBe(401);
    expect(reply.body.error?.code).toBe('unauthorized');
    expect({ accounts: await countItems('account'), holders: await countItems('holder') }).toEqual(before);
  });

  it('a deleted, a disabled or a signed-out holder: 401, nothing created', async () => {
    const client = identityClient(stack);
    try {
      const deleted = await signedInHolder(stack);
      await client.send(new AdminDeleteUserCommand({ UserPoolId: stack.identity.userPoolId, Username: deleted.email }));
      const disabled = await signedInHolder(stack);
      await client.send(new AdminDisableUserCommand({ UserPoolId: stack.identity.userPoolId, Username: disabled.email }));
      const signedOut = await signedInHolder(stack);
      await client.send(new GlobalSignOutCommand({ AccessToken: signedOut.accessToken }));
      for (const token of [deleted.accessToken, disabled.accessToken, signedOut.accessToken]) {
        expect((await get(token, '/account')).status).toBe(401);
      }
      expect({ accounts: await countItems('account'), holders: await countItems('holder') }).toEqual(before);
      // The holder whose claims were copied above is still fine.
      expect((await get(holder.accessToken, '/account')).status).toBe(200);
    } finally {
      client.destroy();
    }
  });
});

describe('admin user commands (through the identity server, as with --aws through Cognito)', () => {
  const admin = async (...args: string[]) => adminIn(stack.dataDir, ...args);
  /** The admin CLI on the stack's data folder, where it finds the identity server's admin credentials. */
  const adminIn = async (dataDir: string, ...args: string[]) => {
    const result = await runScript('bin/admin.ts', args, {
      DATA_DIR: dataDir,
      TABLE_NAME: stack.context.db.tableName,
      AWS_REGION: 'local',
      DYNAMODB_ENDPOINT: stack.dynamodbEndpoint,
      IDENTITY_ENDPOINT: stack.identity.endpoint,
      USER_POOL_ID: stack.identity.userPoolId,
      USER_POOL_CLIENT_ID: stack.identity.clientId,
    });
    return { ...result, json: result.code === 0 ? (JSON.parse(result.stdout) as Record<string, any>) : undefined };
  };

  it('user create makes a verified holder with a new account; user sign-in prints a token the API takes', async () => {
    const email = `ops-${Date.now()}@example.com`;
    const created = await admin('user', 'create', '--email', email, '--password', GOOD_PASSWORD);
    expect(created.stderr).toBe('');
    expect(created.json).toEqual({ holder_id: expect.any(String), email, account_id: expect.stringMatching(/^acc_/), role: 'owner', created_account: true });
    const signedIn = await admin('user', 'sign-in', '--email', email, '--password', GOOD_PASSWORD);
    expect(signedIn.json).toEqual({ access_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/), expires_in: 3600 });
    const account = await get(signedIn.json!.access_token, '/account');
    expect(account.body.data).toMatchObject({ account_id: created.json!.account_id, email });
  });

  it('user create --account attaches the holder to an existing account; bad input is refused before anything is made', async () => {
    const { account } = await createAccount(stack.context, { credits: 42 });
    const email = `team-${Date.now()}@example.com`;
    const attached = await admin('user', 'create', '--email', email, '--password', GOOD_PASSWORD, '--account', account.accountId);
    expect(attached.json).toMatchObject({ account_id: account.accountId, role: 'owner', created_account: false });
    const token = (await admin('user', 'sign-in', '--email', email, '--password', GOOD_PASSWORD)).json!.access_token as string;
    expect((await get(token, '/account')).body.data).toMatchObject({ account_id: account.accountId, live: { credits: 42 } });

    // --role makes them a member in that role: a viewer reads the account and is refused a start.
    const viewerEmail = `viewer-${Date.now()}@example.com`;
    const viewer = await admin('user', 'create', '--email', viewerEmail, '--password', GOOD_PASSWORD, '--account', account.accountId, '--role', 'viewer');
    expect(viewer.json).toMatchObject({ account_id: account.accountId, role: 'viewer', created_account: false });
    const viewerToken = (await admin('user', 'sign-in', '--email', viewerEmail, '--password', GOOD_PASSWORD)).json!.access_token as string;
    expect((await get(viewerToken, '/accounts')).body.data).toEqual({ accounts: [{ account_id: account.accountId, role: 'viewer' }] });
    const start = await call<any>(stack.baseUrl, '/generate', { method: 'POST', key: viewerToken, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ prompt: 'a heron' }) });
    expect(start.status).toBe(403);
    expect(start.body.error?.message).toMatch(/viewer.*developer/);
    const badRole = await admin('user', 'create', '--email', `boss-${Date.now()}@example.com`, '--password', GOOD_PASSWORD, '--account', account.accountId, '--role', 'boss');
    expect(badRole.code).toBe(2); // a usage error, as for any bad flag
    expect(badRole.stderr).toMatch(/--role must be one of owner, admin, developer, billing, viewer; got "boss"/);
    const roleAlone = await admin('user', 'create', '--email', `alone-${Date.now()}@example.com`, '--password', GOOD_PASSWORD, '--role', 'viewer');
    expect(roleAlone.code).toBe(2);
    expect(roleAlone.stderr).toMatch(/--role needs --account/);

    const weak = await admin('user', 'create', '--email', `weak-${Date.now()}@example.com`, '--password', 'short');
    expect(weak.code).toBe(1);
    expect(weak.stderr).toMatch(/--password: Password did not conform with policy/);
    const unknown = await admin('user', 'create', '--email', `lost-${Date.now()}@example.com`, '--password', GOOD_PASSWORD, '--account', 'acc_01NOPE');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/--account: no account acc_01NOPE/);
    const again = await admin('user', 'create', '--email', email, '--password', GOOD_PASSWORD);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exists/);
    const wrong = await admin('user', 'sign-in', '--email', email, '--password', 'Wrong-Password-1');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/Incorrect username or password/);
  });

  it("user create without the stack's data folder (so without its admin credentials) is refused, nothing made; user sign-in needs none", async () => {
    const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'vidgen-elsewhere-'));
    const email = `stranger-${Date.now()}@example.com`;
    const refused = await adminIn(elsewhere, 'user', 'create', '--email', email, '--password', GOOD_PASSWORD);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/No credentials for the local identity server/);
    const holder = await signedInHolder(stack);
    expect((await adminIn(elsewhere, 'user', 'sign-in', '--email', holder.email, '--password', GOOD_PASSWORD)).json).toMatchObject({ access_token: expect.any(String) });
    const client = identityClient(stack);
    try {
      await expect(client.send(new AdminGetUserCommand({ UserPoolId: stack.identity.userPoolId, Username: email }))).rejects.toMatchObject({ name: 'UserNotFoundException' });
    } finally {
      client.destroy();
    }
  });
});

describe('vidgen login', () => {
  it('stores a session (0600) that vidgen uses without an API key, refreshing it when it expires', async () => {
    const holder = await signedInHolder(stack);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'vidgen-login-'));
    const env = {
      VIDGEN_CONFIG: path.join(dir, 'config.json'),
      VIDGEN_BASE_URL: stack.baseUrl,
      VIDGEN_IDENTITY_ENDPOINT: stack.identity.endpoint,
      VIDGEN_CLIENT_ID: stack.identity.clientId,
      VIDGEN_API_KEY: '',
    };
    const vidgen = (...args: string[]) => runScript('bin/vidgen.ts', args, env);

    const signedIn = await vidgen('login', '--email', holder.email, '--password', GOOD_PASSWORD, '--json');
    expect(signedIn.code).toBe(0);
    const file = path.join(dir, 'session.json');
    expect(JSON.parse(signedIn.stdout)).toMatchObject({ email: holder.email, stored_in: file });
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const account = await vidgen('account', '--json');
    expect(account.stderr).toBe('');
    expect(JSON.parse(account.stdout)).toMatchObject({ email: holder.email, live: { credits: 0 }, test: { credits: 1000 } });

    // An access token about to expire is refreshed with the refresh token before the request.
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify({ ...stored, accessToken: 'expired.access.token', expiresAt: Date.now() - 1000 }));
    const credits = await runScript('bin/vidgen.ts', ['credits', '--json'], { ...env, VIDGEN_MODE: 'test' });
    expect(JSON.parse(credits.stdout)).toMatchObject({ credits: 1000 });
    expect(credits.stderr).toMatch(/TEST MODE \(VIDGEN_MODE=test\)/);
    const refreshed = JSON.parse(readFileSync(file, 'utf8'));
    expect(refreshed.accessToken).not.toBe('expired.access.token');
    expect(refreshed.expiresAt).toBeGreaterThan(Date.now());

    expect((await vidgen('logout')).stdout).toMatch(/Signed out/);
    const none = await vidgen('account');
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/No API key and no session/);
  });
});
