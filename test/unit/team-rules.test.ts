import { ForbiddenError, NotFoundError } from '#domain/shared/errors';
import { judgeMemberChange, LastOwnerError, mayManage, ROLES, type Role } from '#domain/accounts/roles';

/**
 * Who may change whom (CONTRACT.md, "Teams": members are managed by owners and by admins "not
 * owners"), and the judge's order: no member (404), no owner left (409), the actor may not (403).
 */
describe('mayManage: every actor × target × new role (or removal)', () => {
  const changes: (Role | undefined)[] = [...ROLES, undefined];
  it.each(ROLES.map((actor) => [actor]))('%s', (actor) => {
    for (const target of ROLES) {
      for (const newRole of changes) {
        // Written out from the contract's table, not from the code.
        const expected = actor === 'owner' || (actor === 'admin' && target !== 'owner' && newRole !== 'owner');
        expect([actor, target, newRole ?? 'remove', mayManage(actor, target, newRole)]).toEqual([actor, target, newRole ?? 'remove', expected]);
      }
    }
  });
});

describe('judgeMemberChange', () => {
  const change = (newRole: Role | undefined) => ({ accountId: 'acc_1', holderId: 'h2', newRole });

  it('answers 404 for a target that is no member, before anything else', () => {
    expect(judgeMemberChange({ owners: 0, target: undefined, actor: null }, change('viewer'))).toBeInstanceOf(NotFoundError);
  });

  it('answers last_owner for the last owner leaving, demoted or removed, even when the actor may not act at all', () => {
    for (const newRole of ['admin', 'viewer', undefined] as const) {
      expect(judgeMemberChange({ owners: 1, target: 'owner', actor: 'owner' }, change(newRole))).toBeInstanceOf(LastOwnerError);
      // Rule 2 before rule 3: two owners demoting each other, the loser reads itself demoted already.
      expect(judgeMemberChange({ owners: 1, target: 'owner', actor: 'admin' }, change(newRole))).toBeInstanceOf(LastOwnerError);
      expect(judgeMemberChange({ owners: 1, target: 'owner', actor: null }, change(newRole))).toBeInstanceOf(LastOwnerError);
    }
    // An owner staying an owner is no loss; two owners may lose one.
    expect(judgeMemberChange({ owners: 1, target: 'owner', actor: 'owner' }, change('owner'))).toBeUndefined();
    expect(judgeMemberChange({ owners: 2, target: 'owner', actor: 'owner' }, change(undefined))).toBeUndefined();
  });

  it('refuses an actor who may not, naming why', () => {
    const refusal = (actor: Role | null, target: Role, newRole: Role | undefined) => judgeMemberChange({ owners: 2, target, actor }, change(newRole));
    expect(refusal('admin', 'owner', 'viewer')).toEqual(new ForbiddenError('Only an owner may change or remove an owner.'));
    expect(refusal('admin', 'developer', 'owner')).toEqual(new ForbiddenError('Only an owner may make an owner.'));
    expect(refusal('developer', 'viewer', 'billing')).toEqual(new ForbiddenError('Your role in acc_1 (developer) may not manage members; a role that may: owner, admin.'));
    expect(refusal(null, 'viewer', undefined)).toEqual(new ForbiddenError('You are no longer a member of acc_1.'));
    expect(refusal('admin', 'viewer', 'developer')).toBeUndefined();
    // The operator (no actor) may do anything that keeps an owner.
    expect(judgeMemberChange({ owners: 2, target: 'owner' }, change(undefined))).toBeUndefined();
  });
});
