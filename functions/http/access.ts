import type { KeyScope } from '#domain/accounts/api-key';
import { ForbiddenError } from '#domain/shared/errors';
import type { Principal } from '#domain/accounts/principal';
import { isRole, ROLES, type Role } from '#domain/accounts/roles';
import { ROLE_GRANTED, type Access, type Capability } from '#spec/function-spec';

/**
 * Who may call an endpoint, decided from its spec's `access` (functions/spec/function-spec.ts).
 * Deny by default: a caller kind the spec does not name, a key without the capability as a
 * scope, a session whose role does not grant it, any kind of caller this code does not know:
 * each is refused with 403 `forbidden`. Nothing is allowed because nobody said no.
 */

export { ROLES, type Role };

/** What each role may do (CONTRACT.md, "Teams", the table "sessions may"). */
export const ROLE_CAPABILITIES: Readonly<Record<Role, readonly Capability[]>> = {
  owner: ROLE_GRANTED,
  admin: ROLE_GRANTED,
  developer: ['read', 'generate', 'keys', 'webhooks'],
  billing: ['read', 'billing'],
  viewer: ['read'],
};

/** What the decision looks at: the caller's kind and what it holds. */
export type CallerFacts =
  | { readonly kind: 'apiKey'; readonly scopes: readonly KeyScope[] }
  /** `role` null: not a member of the account the request picked (or of any), for the reason `refusal` gives. */
  | { readonly kind: 'session'; readonly role: Role | null; readonly accountId?: string | null; readonly refusal?: string }
  /** No credential ('anonymous': the gateway lets none through to an authenticated route), or a kind this code does not know. */
  | { readonly kind: string };

export type Decision = { readonly allow: true } | { readonly allow: false; readonly message: string };

const ALLOW: Decision = { allow: true };
const deny = (message: string): Decision => ({ allow: false, message });

/** The roles that grant a capability, for the message a refused session gets. */
export const rolesWith = (capability: Capability): Role[] => ROLES.filter((role) => ROLE_CAPABILITIES[role].includes(capability));

export function decide(caller: CallerFacts, access: Access): Decision {
  // Public: nothing to guard, or the function checks its own credential (a signature).
  if ('checks' in access) return ALLOW;
  // Behind no route: IAM is the gate, and no request reaches it.
  if (!('capability' in access)) return deny('This is not an endpoint of the API.');
  const callers: readonly string[] = access.callers;
  if (!callers.includes(caller.kind)) {
    if (caller.kind === 'apiKey') return deny('This endpoint is for signed-in account holders (a console session), not API keys.');
    if (caller.kind === 'session') return deny('This endpoint is for API keys, not console sessions.');
    return deny('This endpoint does not take this kind of caller.');
  }
  const { capability } = access;
  if (caller.kind === 'apiKey' && 'scopes' in caller) {
    return (caller.scopes as readonly string[]).includes(capability) ? ALLOW : deny(`This API key does not have the "${capability}" scope this endpoint needs.`);
  }
  if (caller.kind === 'session' && 'role' in caller) {
    // The holder's own routes (their accounts, their invitations): whatever the account or role.
    if (capability === 'holder') return ALLOW;
    if (caller.role === null) return deny(caller.refusal ?? 'You are not a member of this account.');
    if (ROLE_CAPABILITIES[caller.role].includes(capability)) return ALLOW;
    const where = caller.accountId ? ` in ${caller.accountId}` : '';
    return deny(`Your role${where} (${caller.role}) may not ${VERBS[capability]}; a role that may: ${rolesWith(capability).join(', ')}.`);
  }
  // A kind a spec names but this code cannot check: refused until it can.
  return deny('This endpoint does not take this kind of caller.');
}

/** What a refused session was trying to do, in its 403's words. */
const VERBS: Readonly<Record<Capability, string>> = {
  read: 'read',
  generate: 'generate',
  webhooks: 'manage webhooks',
  keys: 'manage API keys',
  billing: 'manage billing',
  members: 'manage members or account settings',
  holder: 'do this',
};

/** The facts of a principal: a session's role in the account its request picked. */
export function callerOf(principal: Principal): CallerFacts {
  if (principal.kind === 'apiKey') return { kind: 'apiKey', scopes: principal.scopes };
  if (principal.kind === 'session') {
    const { role, accountId, refusal } = principal as { role: unknown; accountId: string | null; refusal?: string };
    if (role === null) return { kind: 'session', role: null, accountId, ...(refusal !== undefined && { refusal }) };
    // A role this code does not know grants nothing.
    return isRole(role) ? { kind: 'session', role, accountId } : { kind: 'session with an unknown role' };
  }
  return { kind: String((principal as { kind: unknown }).kind) };
}

/** 403 `forbidden` unless `decide` allows the principal. */
export function checkAccess(principal: Principal, access: Access): void {
  const decision = decide(callerOf(principal), access);
  if (!decision.allow) throw new ForbiddenError(decision.message);
}

/** The same check for an action inside a route (an MCP tool mirroring another route): keys and sessions, this capability. */
export function checkCapability(principal: Principal, capability: Capability): void {
  checkAccess(principal, { callers: ['apiKey', 'session'], capability });
}
