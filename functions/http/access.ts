import type { KeyScope } from '#domain/accounts/api-key';
import { ForbiddenError } from '#domain/shared/errors';
import type { Principal, SessionPrincipal } from '#domain/accounts/principal';
import { CAPABILITIES, type Access, type Capability } from '#spec/function-spec';

/**
 * Who may call an endpoint, decided from its spec's `access` (functions/spec/function-spec.ts).
 * Deny by default: a caller kind the spec does not name, a key without the capability as a
 * scope, a session whose role does not grant it, any kind of caller this code does not know:
 * each is refused with 403 `forbidden`. Nothing is allowed because nobody said no.
 */

/** An account member's role (CONTRACT.md, "Teams"). */
export const ROLES = ['owner', 'admin', 'developer', 'billing', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** What each role may do (CONTRACT.md, "Teams", the table "sessions may"). */
export const ROLE_CAPABILITIES: Readonly<Record<Role, readonly Capability[]>> = {
  owner: CAPABILITIES,
  admin: CAPABILITIES,
  developer: ['read', 'generate', 'keys', 'webhooks'],
  billing: ['read', 'billing'],
  viewer: ['read'],
};

/** What the decision looks at: the caller's kind and what it holds. */
export type CallerFacts =
  | { readonly kind: 'apiKey'; readonly scopes: readonly KeyScope[] }
  | { readonly kind: 'session'; readonly role: Role }
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
    return ROLE_CAPABILITIES[caller.role].includes(capability)
      ? ALLOW
      : deny(`Your role (${caller.role}) may not do this; a role that may: ${rolesWith(capability).join(', ')}.`);
  }
  // A kind a spec names but this code cannot check: refused until it can.
  return deny('This endpoint does not take this kind of caller.');
}

const isRole = (value: unknown): value is Role => (ROLES as readonly unknown[]).includes(value);

/** The facts of a principal. Until the teams issue gives sessions a role, a session acts on the account it owns: as its owner. */
export function callerOf(principal: Principal): CallerFacts {
  if (principal.kind === 'apiKey') return { kind: 'apiKey', scopes: principal.scopes };
  if (principal.kind === 'session') {
    const role = (principal as SessionPrincipal & { role?: unknown }).role ?? 'owner';
    // A role this code does not know grants nothing.
    return isRole(role) ? { kind: 'session', role } : { kind: 'session with an unknown role' };
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
