import { parseBearer } from './api-key';
import { authenticate } from './authenticate';
import { authenticateSession, type SessionDependencies } from './authenticate-session';
import { UnauthorizedError } from '../shared/errors';
import type { Principal } from './principal';
import type { ApiKeyStore, IdentityProvider } from './ports';

export interface CallerDependencies extends Omit<SessionDependencies, 'identity'> {
  apiKeys: ApiKeyStore;
  /** Unset where sessions are not configured. */
  identity?: IdentityProvider;
}

/** A JWT is three base64url parts joined by dots; an API key (`vg_live_…`) has none. */
export function looksLikeJwt(credential: string): boolean {
  return credential.split('.').length === 3;
}

/**
 * Resolves `Authorization: Bearer …` to its principal: an API key, or an account holder's access
 * token (a session, resolved to the holder's account in live mode). Without sessions configured
 * (no identity provider), a token is refused like any unknown credential.
 */
export async function authenticateCaller(deps: CallerDependencies, authorizationHeader: string | undefined): Promise<Principal> {
  const credential = parseBearer(authorizationHeader);
  if (credential && looksLikeJwt(credential)) {
    if (!deps.identity) throw new UnauthorizedError();
    return authenticateSession({ ...deps, identity: deps.identity }, credential);
  }
  return authenticate(deps.apiKeys, authorizationHeader, deps.defaultRateLimit, deps.clock());
}
