import { createPrivateKey, generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  AdminCreateUserCommand,
  AdminSetUserPasswordCommand,
  CognitoIdentityProviderClient,
  InitiateAuthCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { identityAdminCredentials } from '#bin/local-stack/discovery';
import type { LocalStack } from '#bin/local-stack/stack';

/** A password the pool's policy accepts. */
export const GOOD_PASSWORD = 'Correct-Horse-42';

/** The AWS SDK's client for the stack's identity server, signing with the key the stack holds (found as the admin CLI finds it). */
export function identityClient(stack: Pick<LocalStack, 'identity' | 'dataDir'>): CognitoIdentityProviderClient {
  const credentials = identityAdminCredentials(stack.dataDir);
  if (!credentials) throw new Error(`No identity pool file with admin credentials under ${stack.dataDir}.`);
  return new CognitoIdentityProviderClient({ endpoint: stack.identity.endpoint, region: 'local', credentials });
}

export interface SignedIn {
  email: string;
  holderId: string;
  accessToken: string;
  idToken: string;
  refreshToken: string;
}

/** A verified holder made as the admin CLI makes one, signed in as the console signs in. */
export async function signedInHolder(stack: Pick<LocalStack, 'identity' | 'dataDir'>, email = `holder-${randomUUID()}@example.com`): Promise<SignedIn> {
  const client = identityClient(stack);
  try {
    const { userPoolId, clientId } = stack.identity;
    const created = await client.send(
      new AdminCreateUserCommand({
        UserPoolId: userPoolId,
        Username: email,
        UserAttributes: [
          { Name: 'email', Value: email },
          { Name: 'email_verified', Value: 'true' },
        ],
        MessageAction: 'SUPPRESS',
      }),
    );
    await client.send(new AdminSetUserPasswordCommand({ UserPoolId: userPoolId, Username: email, Password: GOOD_PASSWORD, Permanent: true }));
    const auth = await client.send(
      new InitiateAuthCommand({ ClientId: clientId, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: email, PASSWORD: GOOD_PASSWORD } }),
    );
    const result = auth.AuthenticationResult!;
    return {
      email,
      holderId: created.User!.Attributes!.find((attribute) => attribute.Name === 'sub')!.Value!,
      accessToken: result.AccessToken!,
      idToken: result.IdToken!,
      refreshToken: result.RefreshToken!,
    };
  } finally {
    client.destroy();
  }
}

/** The claims of a JWT, unverified (to build variations of a real token). */
export function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
}

/** The local pool's own signing key and key id, read from its data file. */
export function poolSigningKey(stack: Pick<LocalStack, 'dataDir'>): { key: KeyObject; kid: string } {
  const { signingKey } = JSON.parse(readFileSync(path.join(stack.dataDir, 'identity', 'user-pool.json'), 'utf8')) as {
    signingKey: { kid: string } & Record<string, unknown>;
  };
  const { kid, ...jwk } = signingKey;
  return { key: createPrivateKey({ key: jwk as never, format: 'jwk' }), kid };
}

/** A JWT with any header and claims, signed RS256 by `key` (or unsigned for `alg: none`). */
export function jwt(header: Record<string, unknown>, claims: Record<string, unknown>, key?: KeyObject): string {
  const encode = (part: object) => Buffer.from(JSON.stringify(part)).toString('base64url');
  const input = `${encode(header)}.${encode(claims)}`;
  return `${input}.${key ? sign('RSA-SHA256', Buffer.from(input), key).toString('base64url') : ''}`;
}

/** An RSA key nobody trusts. */
export const strangerKey = (): KeyObject => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
