import type { KeyScope } from '#domain/accounts/api-key';
import { ForbiddenError } from '#domain/shared/errors';
import type { Principal } from '#domain/accounts/principal';

/**
 * Who may call an endpoint, as its route in the table declares it (route.ts `scope`, `callers`):
 * an API key with this scope (a session may do everything), or a signed-in account holder only.
 */
export type Access = { scope: KeyScope } | { sessionOnly: true };

/** 403 `forbidden` for an API key outside its scopes or on a route for account holders only. */
export function checkAccess(principal: Principal, access: Access): void {
  if (principal.kind !== 'apiKey') return;
  if ('sessionOnly' in access) {
    throw new ForbiddenError('This endpoint is for signed-in account holders (a console session), not API keys.');
  }
  if (!principal.scopes.includes(access.scope)) {
    throw new ForbiddenError(`This API key does not have the "${access.scope}" scope this endpoint needs.`);
  }
}
