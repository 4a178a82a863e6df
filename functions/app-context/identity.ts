import { CognitoIdentity } from '#adapters/identity/cognito-identity';
import type { IdentityProvider } from '#domain/accounts/ports';
import { appIdentityConfig } from './config';

let current: IdentityProvider | undefined | null;

/**
 * The identity provider sessions are checked against, built once per cold start (so its JWKS is
 * downloaded once); undefined where none is configured (sessions are then refused).
 */
export function identityProvider(): IdentityProvider | undefined {
  if (current === undefined) {
    const settings = appIdentityConfig().identity;
    current = settings ? new CognitoIdentity(settings) : null;
  }
  return current ?? undefined;
}
