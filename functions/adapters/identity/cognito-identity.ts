import { validateCognitoJwtFields } from 'aws-jwt-verify/cognito-verifier';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';
import { JwtVerifier } from 'aws-jwt-verify/jwt-verifier';
import type { IdentityHolder } from '#domain/accounts/holder';
import type { IdentityProvider } from '#domain/accounts/ports';

/**
 * The identity provider is an Amazon Cognito user pool on AWS and the local identity server
 * (bin/local-stack/identity/) on the local stack, both reached the same way: tokens are checked
 * by aws-jwt-verify against the pool's JWKS (`<issuer>/.well-known/jwks.json`), and the holder
 * is looked up with Cognito's GetUser at the pool's endpoint, which is the issuer's origin on
 * both (`https://cognito-idp.<region>.amazonaws.com/<pool id>` on AWS).
 */
export interface CognitoIdentitySettings {
  /** The pool's issuer (`iss`). */
  issuer: string;
  /** The app client whose access tokens the API accepts. */
  clientId: string;
}

/** How the adapter reaches the network: global fetch, or a test's stand-in. */
export type FetchLike = (url: string, init?: { method?: string; headers?: Record<string, string>; body?: string }) => Promise<{ status: number; text(): Promise<string> }>;

const GET_USER_TARGET = 'AWSCognitoIdentityProviderService.GetUser';
/** GetUser's answers for a token whose holder is gone, disabled or signed out everywhere. */
const HOLDER_GONE = new Set(['NotAuthorizedException', 'UserNotFoundException', 'PasswordResetRequiredException', 'UserNotConfirmedException']);

export class CognitoIdentity implements IdentityProvider {
  private readonly verifier;
  private readonly endpoint: string;

  constructor(
    settings: CognitoIdentitySettings,
    private readonly fetchFn: FetchLike = fetch,
  ) {
    this.endpoint = new URL(settings.issuer).origin;
    const jwksUri = `${settings.issuer}/.well-known/jwks.json`;
    // One JWKS download per cold start (per instance): a token with a key id the set lacks is
    // refused from the cached set, never sent to the network again.
    this.verifier = JwtVerifier.create(
      {
        issuer: settings.issuer,
        jwksUri,
        // Cognito's access tokens carry no `aud`: the client id is in `client_id` (checked below).
        audience: null,
        customJwtCheck: ({ payload }) => {
          validateCognitoJwtFields(payload, { tokenUse: 'access', clientId: settings.clientId });
          if (typeof payload.exp !== 'number' || typeof payload.sub !== 'string') throw new Error('Access token without exp or sub.');
        },
      },
      { jwksCache: new SimpleJwksCache({ fetcher: onceFetcher(this.fetchFn), penaltyBox: NO_PENALTY }) },
    );
  }

  async verifyAccessToken(token: string): Promise<{ holderId: string } | undefined> {
    try {
      const payload = await this.verifier.verify(token);
      return { holderId: payload.sub! };
    } catch (error) {
      // A JWKS that could not be read is our outage, not the caller's bad token.
      if (error instanceof JwksUnavailableError) throw error;
      return undefined;
    }
  }

  async currentHolder(token: string): Promise<IdentityHolder | undefined> {
    const response = await this.fetchFn(`${this.endpoint}/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-amz-json-1.1', 'X-Amz-Target': GET_USER_TARGET },
      body: JSON.stringify({ AccessToken: token }),
    });
    const body = JSON.parse((await response.text()) || '{}') as {
      __type?: string;
      Username?: string;
      UserAttributes?: Array<{ Name: string; Value?: string }>;
    };
    if (response.status === 400 && HOLDER_GONE.has(errorType(body.__type))) return undefined;
    if (response.status !== 200) throw new Error(`The identity provider answered GetUser with ${response.status} ${errorType(body.__type)}.`);
    const attribute = (name: string) => body.UserAttributes?.find((it) => it.Name === name)?.Value;
    const holderId = attribute('sub');
    const email = attribute('email');
    if (!holderId || !email) throw new Error('The identity provider answered GetUser without sub or email.');
    return { holderId, email, emailVerified: attribute('email_verified') === 'true' };
  }
}

class JwksUnavailableError extends Error {}

/** A failed download is tried again on the next request at once: the authorizer has seconds, not the default 10 s pause. */
const NO_PENALTY = { wait: async () => undefined, registerFailedAttempt: () => undefined, registerSuccessfulAttempt: () => undefined };

/** `aws.protocol#…:Type` and `Type` alike. */
function errorType(raw: string | undefined): string {
  return (raw ?? '').split('#').pop()!.split(':')[0]!;
}

/**
 * aws-jwt-verify's fetcher, over global fetch (http on the local stack, https on AWS), that
 * downloads each URI once and answers every later call from that first answer. A failed
 * download is not kept, so the next request tries again.
 */
function onceFetcher(fetchFn: FetchLike) {
  const downloads = new Map<string, Promise<ArrayBuffer>>();
  return {
    fetch: (uri: string): Promise<ArrayBuffer> => {
      let download = downloads.get(uri);
      if (!download) {
        download = fetchFn(uri).then(async (response) => {
          if (response.status !== 200) throw new JwksUnavailableError(`JWKS download from ${uri} answered ${response.status}.`);
          return new TextEncoder().encode(await response.text()).buffer as ArrayBuffer;
        });
        download.catch(() => downloads.delete(uri));
        downloads.set(uri, download);
      }
      return download.catch((error: unknown) => {
        throw error instanceof JwksUnavailableError ? error : new JwksUnavailableError(`JWKS download from ${uri} failed: ${String(error)}`);
      });
    },
  };
}
