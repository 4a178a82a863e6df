import { CognitoIdentity } from '#adapters/identity/cognito-identity';
import type { CallerDependencies } from '#domain/accounts/authenticate-caller';
import type { IdentityProvider } from '#domain/accounts/ports';
import { appIdentityConfig } from './config';
import { identityStores } from './stores';

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

/** The authorizer's dependencies: the key and holder stores, the identity provider, the configured limits, the clock. */
export function callerDependencies(): CallerDependencies {
  const { apiKeys, holders } = identityStores();
  const { defaultRateLimit, signupCredits } = appIdentityConfig();
  return { apiKeys, holders, identity: identityProvider(), defaultRateLimit, signupCredits, clock: () => new Date() };
}
