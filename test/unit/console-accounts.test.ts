import { ApiError, type Member } from '#client';
import { createdByLabel, lostAccount, mayUse, rolesOffered, ROLES, type Capability } from '#console/accounts';
import { describeError } from '#console/errors';
import { ROLE_CAPABILITIES } from '#http/access';

/** The console's teams helpers: what the navigation offers each role, a removed member's refusal, who made a key. */
const ACC = 'acc_01M8EKZ4Q9V2H7T3R6N0B5C1DX';
const CAPABILITIES: readonly Capability[] = ['read', 'generate', 'keys', 'webhooks', 'billing', 'members'];

describe('the navigation by role', () => {
  it("offers each role exactly the API's capabilities (functions/http/access.ts), and the holder's own pages to everyone", () => {
    expect([...ROLES]).toEqual(Object.keys(ROLE_CAPABILITIES));
    for (const role of ROLES) {
      const offered = CAPABILITIES.filter((capability) => mayUse(role, capability));
      expect({ role, offered }).toEqual({ role, offered: CAPABILITIES.filter((capability) => (ROLE_CAPABILITIES[role] as readonly string[]).includes(capability)) });
      expect(mayUse(role, 'holder')).toBe(true);
    }
  });

  it('offers every page while the role is unknown, and only the holder\'s own without an account', () => {
    expect(CAPABILITIES.every((capability) => mayUse(undefined, capability))).toBe(true);
    expect(CAPABILITIES.some((capability) => mayUse(null, capability))).toBe(false);
    expect(mayUse(null, 'holder')).toBe(true);
  });

  it('offers the owner role to owners only', () => {
    expect(rolesOffered('owner')).toEqual(['owner', 'admin', 'developer', 'billing', 'viewer']);
    expect(rolesOffered('admin')).toEqual(['admin', 'developer', 'billing', 'viewer']);
  });
});

describe('a removed member', () => {
  it('is told apart by the 403 naming the account, and no other refusal', () => {
    expect(lostAccount(new ApiError(`You are not a member of ${ACC}.`, { code: 'forbidden', status: 403 }))).toBe(ACC);
    expect(lostAccount(new ApiError(`Your role in ${ACC} (viewer) may not generate; a role that may: owner, admin, developer.`, { code: 'forbidden', status: 403 }))).toBeUndefined();
    expect(lostAccount(new ApiError(`You are not a member of ${ACC}.`, { code: 'not_found', status: 404 }))).toBeUndefined();
    expect(lostAccount(new Error(`You are not a member of ${ACC}.`))).toBeUndefined();
  });

  it('and a refused role are advised to ask for a role or switch account, not to fix a key', () => {
    const role = describeError(new ApiError(`Your role in ${ACC} (viewer) may not generate; a role that may: owner, admin, developer.`, { code: 'forbidden', status: 403 }));
    expect(role.action).toMatch(/^Ask an owner or admin of the account for a role that may/);
    expect(describeError(new ApiError('This API key does not have the "generate" scope this endpoint needs.', { code: 'forbidden', status: 403 })).action).toMatch(/scope/);
  });
});

describe('who made a key', () => {
  const members: Member[] = [{ holder_id: 'h-dev', email: 'dev@example.com', role: 'developer', joined_at: '2026-11-27T10:00:00.000Z' }];
  it('is a member by email, the operator, a former member by id, or the id when the members are not known', () => {
    expect(createdByLabel('h-dev', members)).toBe('dev@example.com');
    expect(createdByLabel('operator', members)).toBe('operator');
    expect(createdByLabel('h-gone', members)).toBe('former member (h-gone)');
    expect(createdByLabel('h-dev', undefined)).toBe('h-dev');
    expect(createdByLabel(null, members)).toBe('—');
  });
});
