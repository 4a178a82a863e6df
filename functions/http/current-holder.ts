import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { IdentityHolder } from '#domain/accounts/holder';
import type { IdentityProvider } from '#domain/accounts/ports';
import { UnauthorizedError } from '#domain/shared/errors';
import { headerValue } from './headers';

/**
 * The signed-in holder as the identity provider sees them now (GetUser with the request's own
 * access token), not as the authorizer's cached context says: what invitations are bound to (a
 * verified address that may have changed since the token was cached). Undefined provider, a
 * token it no longer accepts, or another holder: 401.
 */
export async function currentHolderOf(identity: IdentityProvider | undefined, event: APIGatewayProxyEvent, holderId: string): Promise<IdentityHolder> {
  const token = /^Bearer\s+(\S+)$/i.exec(headerValue(event, 'authorization') ?? '')?.[1];
  const current = token && identity ? await identity.currentHolder(token) : undefined;
  if (!current || current.holderId !== holderId) throw new UnauthorizedError('Sign in again: your session is no longer valid.');
  return current;
}
