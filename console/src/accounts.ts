import { ApiError, type ApiKey, type Member, type MemberRole } from '#client';

/** Pure helpers for teams in the console (unit-tested in test/unit/console-accounts.test.ts). */

/** What a page needs of the holder's role (CONTRACT.md, "Teams", the table "sessions may"). */
export type Capability = 'read' | 'generate' | 'keys' | 'webhooks' | 'billing' | 'members' | 'holder';

/** The roles in the order CONTRACT.md lists them. */
export const ROLES: readonly MemberRole[] = ['owner', 'admin', 'developer', 'billing', 'viewer'];

/** CONTRACT.md's roles table, restated for the navigation only: the API decides what is allowed. */
const ROLE_CAPABILITIES: Readonly<Record<MemberRole, readonly Capability[]>> = {
  owner: ['read', 'generate', 'keys', 'webhooks', 'billing', 'members'],
  admin: ['read', 'generate', 'keys', 'webhooks', 'billing', 'members'],
  developer: ['read', 'generate', 'keys', 'webhooks'],
  billing: ['read', 'billing'],
  viewer: ['read'],
};

/**
 * Whether the navigation offers a page that needs `needs` to a holder of `role`: every page while
 * the role is unknown (undefined), only the holder's own pages without an account (null).
 */
export function mayUse(role: MemberRole | null | undefined, needs: Capability): boolean {
  if (needs === 'holder' || role === undefined) return true;
  return role !== null && ROLE_CAPABILITIES[role].includes(needs);
}

/** The roles `actor` may give (an admin manages members, not owners; CONTRACT.md "yes (not owners)"). */
export const rolesOffered = (actor: MemberRole | null | undefined): MemberRole[] => ROLES.filter((role) => role !== 'owner' || actor === 'owner');

/**
 * The account a refusal says the holder is no longer a member of (403 "You are not a member of
 * acc_…", the API's answer to a removed member once the authorizer's cache has expired), if it is one.
 */
export function lostAccount(error: unknown): string | undefined {
  if (!(error instanceof ApiError) || error.status !== 403 || error.code !== 'forbidden') return undefined;
  return /\bnot a member of (acc_[0-9A-Z]{26})\b/.exec(error.message)?.[1];
}

/**
 * Who made a key, in words: a member's email (from the members list, when the holder may read
 * it), `operator`, `former member (id)` for a holder no longer among the members, or the holder id
 * when the list is not known (a role that may not read it).
 */
export function createdByLabel(createdBy: ApiKey['created_by'], members: readonly Member[] | undefined): string {
  if (createdBy === null) return '—';
  if (createdBy === 'operator') return 'operator';
  if (!members) return createdBy;
  return members.find((member) => member.holder_id === createdBy)?.email ?? `former member (${createdBy})`;
}
