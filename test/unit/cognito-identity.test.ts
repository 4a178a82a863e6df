import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { CognitoIdentity, type FetchLike } from '#adapters/identity/cognito-identity';
import { jwt, strangerKey } from '#test-support/identity';

/**
 * The session verifier with keys made here and the network replaced by a function: what it
 * accepts, what it refuses, and that it downloads the JWKS once however many tokens it sees.
 */
const ISSUER = 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_TestPool1';
const CLIENT_ID = 'client0123456789abcdefghij';
const KID = 'pool-key-1';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const JWKS = { keys: [{ ...publicKey.export({ format: 'jwk' }), kid: KID, alg: 'RS256', use: 'sig' }] };

const now = () => Math.floor(Date.now() / 1000);
const accessClaims = (extra: Record<string, unknown> = {}) => ({
  sub: 'holder-1',
  iss: ISSUER,
  client_id: CLIENT_ID,
  token_use: 'access',
  scope: 'aws.cognito.signin.user.admin',
  iat: now(),
  exp: now() + 3600,
  jti: randomUUID(),
  username: 'holder-1',
  ...extra,
});
const token = (claims = accessClaims(), key: KeyObject = privateKey, kid = KID) => jwt({ alg: 'RS256', kid }, claims, key);

/** A stand-in network: the JWKS at its URL, GetUser answering `getUser`; counts each call. */
function network(getUser: { status: number; body: object } = { status: 200, body: user('holder-1') }) {
  const calls: string[] = [];
  const fetchFn: FetchLike = async (url, init) => {
    calls.push(init?.headers?.['X-Amz-Target'] ?? url);
    if (url === `${ISSUER}/.well-known/jwks.json`) return { status: 200, text: async () => JSON.stringify(JWKS) };
    if (url === 'https://cognito-idp.eu-west-1.amazonaws.com/') return { status: getUser.status, text: async () => JSON.stringify(getUser.body) };
    return { status: 404, text: async () => '' };
  };
  return { calls, fetchFn };
}

function user(sub: string, verified = true) {
  return {
    Username: sub,
    UserAttributes: [
      { Name: 'sub', Value: sub },
      { Name: 'email', Value: 'ada@example.com' },
      { Name: 'email_verified', Value: String(verified) },
    ],
  };
}

describe('CognitoIdentity', () => {
  it("accepts the pool's access token for its client and names the holder", async () => {
    const { fetchFn } = network();
    await expect(new CognitoIdentity({ issuer: ISSUER, clientId: CLIENT_ID }, fetchFn).verifyAccessToken(token())).resolves.toEqual({ holderId: 'holder-1' });
  });

  it.each<[string, () => string]>([
    ['another key under the same key id', () => token(accessClaims(), strangerKey())],
    ['an unknown key id', () => token(accessClaims(), strangerKey(), 'other-kid')],
    ['alg none', () => jwt({ alg: 'none', kid: KID }, accessClaims())],
    ['HS256 keyed with the public key', () => jwt({ alg: 'HS256', kid: KID }, accessClaims())],
    ['changed claims', () => {
      const [head, , signature] = token().split('.');
      return `${head}.${Buffer.from(JSON.stringify(accessClaims({ sub: 'mallory' }))).toString('base64url')}.${signature}`;
    }],
    ['an expired token', () => token(accessClaims({ iat: now() - 7200, exp: now() - 60 }))],
    ['no expiry', () => token(accessClaims({ exp: undefined }))],
    ['another issuer', () => token(accessClaims({ iss: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Other' }))],
    ['another client', () => token(accessClaims({ client_id: 'someoneelse' }))],
    ['an ID token', () => token({ ...accessClaims({ token_use: 'id', aud: CLIENT_ID }), client_id: undefined } as never)],
    ['not a JWT', () => 'a.b.c'],
  ])('refuses %s', async (_, make) => {
    const { fetchFn } = network();
    await expect(new CognitoIdentity({ issuer: ISSUER, clientId: CLIENT_ID }, fetchFn).verifyAccessToken(make())).resolves.toBeUndefined();
  });

  it('downloads the JWKS once for any number of tokens, good or with unknown key ids', async () => {
    const { calls, fetchFn } = network();
    const identity = new CognitoIdentity({ issuer: ISSUER, clientId: CLIENT_ID }, fetchFn);
    await Promise.all(Array.from({ length: 5 }, () => identity.verifyAccessToken(token())));
    for (let i = 0; i < 3; i += 1) await identity.verifyAccessToken(token(accessClaims(), strangerKey(), `kid-${i}`));
    await identity.verifyAccessToken(token());
    expect(calls).toEqual([`${ISSUER}/.well-known/jwks.json`]);
  });

  it('a JWKS that cannot be read is an outage (thrown), not a refused token; the next request tries again', async () => {
    let up = false;
    const fetchFn: FetchLike = async (url) =>
      up ? network().fetchFn(url) : Promise.reject(new Error('connect ECONNREFUSED'));
    const identity = new CognitoIdentity({ issuer: ISSUER, clientId: CLIENT_ID }, fetchFn);
    await expect(identity.verifyAccessToken(token())).rejects.toThrow(/JWKS download/);
    up = true;
    await expect(identity.verifyAccessToken(token())).resolves.toEqual({ holderId: 'holder-1' });
  });

  it("asks GetUser at the pool's endpoint for the holder; a gone or signed-out holder is undefined, an outage throws", async () => {
    const settings = { issuer: ISSUER, clientId: CLIENT_ID };
    const live = network();
    await expect(new CognitoIdentity(settings, live.fetchFn).currentHolder('tok')).resolves.toEqual({ holderId: 'holder-1', email: 'ada@example.com', emailVerified: true });
    expect(live.calls).toEqual(['AWSCognitoIdentityProviderService.GetUser']);
    for (const type of ['NotAuthorizedException', 'UserNotFoundException']) {
      const gone = network({ status: 400, body: { __type: type, message: 'no' } });
      await expect(new CognitoIdentity(settings, gone.fetchFn).currentHolder('tok')).resolves.toBeUndefined();
    }
    const down = network({ status: 500, body: { __type: 'InternalErrorException' } });
    await expect(new CognitoIdentity(settings, down.fetchFn).currentHolder('tok')).rejects.toThrow(/500/);
  });
});
