import { createPrivateKey, createPublicKey, randomUUID, sign, verify, type JsonWebKey as JWK } from 'node:crypto';
import { TOKEN_LIFETIMES } from '#lib/identity-policy';
import type { StoredUser } from './pool-store';

/**
 * Tokens as Cognito issues them: RS256 JWTs whose header names the key (`kid`) published at
 * `<issuer>/.well-known/jwks.json`, with Cognito's claims for an access token and an ID token.
 */
export interface TokenSigner {
  issuer: string;
  jwks(): { keys: JWK[] };
  accessToken(user: StoredUser, clientId: string, originJti: string, authTime: number, now?: number): string;
  idToken(user: StoredUser, clientId: string, originJti: string, authTime: number, now?: number): string;
}

export function tokenSigner(issuer: string, signingKey: JWK & { kid: string }): TokenSigner {
  const { kid, ...jwk } = signingKey;
  const privateKey = createPrivateKey({ key: jwk, format: 'jwk' });
  const publicJwk = { ...createPublicKey(privateKey).export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' };
  const signJwt = (claims: Record<string, unknown>) => {
    const encode = (part: object) => Buffer.from(JSON.stringify(part)).toString('base64url');
    const input = `${encode({ kid, alg: 'RS256' })}.${encode(claims)}`;
    return `${input}.${sign('RSA-SHA256', Buffer.from(input), privateKey).toString('base64url')}`;
  };
  const seconds = (now: number) => Math.floor(now / 1000);
  return {
    issuer,
    jwks: () => ({ keys: [publicJwk] }),
    accessToken: (user, clientId, originJti, authTime, now = Date.now()) =>
      signJwt({
        sub: user.sub,
        iss: issuer,
        client_id: clientId,
        origin_jti: originJti,
        event_id: randomUUID(),
        token_use: 'access',
        scope: 'aws.cognito.signin.user.admin',
        auth_time: authTime,
        exp: seconds(now) + TOKEN_LIFETIMES.accessTokenMinutes * 60,
        iat: seconds(now),
        jti: randomUUID(),
        username: user.sub,
      }),
    idToken: (user, clientId, originJti, authTime, now = Date.now()) =>
      signJwt({
        sub: user.sub,
        email_verified: user.emailVerified,
        iss: issuer,
        'cognito:username': user.sub,
        origin_jti: originJti,
        aud: clientId,
        event_id: randomUUID(),
        token_use: 'id',
        auth_time: authTime,
        exp: seconds(now) + TOKEN_LIFETIMES.idTokenMinutes * 60,
        iat: seconds(now),
        jti: randomUUID(),
        email: user.email,
      }),
  };
}

/** The claims of a token this server signed, once its signature checks out; undefined otherwise. */
export function readOwnToken(token: string, jwks: { keys: JWK[] }): Record<string, unknown> | undefined {
  const [header, payload, signature] = token.split('.');
  if (!header || !payload || !signature) return undefined;
  try {
    const { kid, alg } = JSON.parse(Buffer.from(header, 'base64url').toString()) as { kid?: string; alg?: string };
    const jwk = jwks.keys.find((key) => (key as { kid?: string }).kid === kid);
    if (!jwk || alg !== 'RS256') return undefined;
    const publicKey = createPublicKey({ key: jwk, format: 'jwk' });
    const valid = verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature, 'base64url'));
    return valid ? (JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
