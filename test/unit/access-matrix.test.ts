import type { Principal } from '#domain/accounts/principal';
import { callerOf, checkAccess, decide, ROLE_CAPABILITIES } from '#http/access';
import { isHttpSpec, type CallerKind, type FunctionSpec } from '#spec/function-spec';
import { loadSpecs, specOf } from '#spec/registry';
import { accessProblems, COLUMNS } from '#test-support/access-oracle';

/**
 * Deny by default (issue 33): every function's access decision (functions/http/access.ts on its
 * spec), for every kind of caller (no credential, API keys with each scope, all and none, a
 * session in each role of CONTRACT.md "Teams", and a kind nobody names), against the contract's
 * rules (test/support/access-oracle.ts, written from CONTRACT.md, never from the specs).
 */
const specs = loadSpecs();

/** A copy of a spec whose access forgets one caller kind: what a slip in a spec looks like. */
function forgetting(spec: FunctionSpec, kind: CallerKind): FunctionSpec {
  if (!('capability' in spec.access)) throw new Error(`${spec.name} names no caller kinds.`);
  const callers = spec.access.callers.filter((caller) => caller !== kind);
  return { ...spec, access: { ...spec.access, callers: callers as [CallerKind, ...CallerKind[]] } };
}

describe('access matrix: every route × every caller kind', () => {
  it.each(specs.filter(isHttpSpec).map((spec) => [`${spec.trigger.method} ${spec.trigger.path}`, spec] as const))('%s decides as the contract says', (_, spec) => {
    expect(accessProblems([spec])).toEqual([]);
  });

  it('refuses every caller of a function behind no route', () => {
    const background = specs.filter((spec) => !isHttpSpec(spec));
    expect(background.map((spec) => spec.name).sort()).toEqual(['authorizer', 'copy-output', 'deliver-output', 'submission-consumer', 'sweeper', 'webhook-delivery']);
    expect(accessProblems(background)).toEqual([]);
  });

  it('refuses a kind of caller no spec names, on every route: nothing is allowed by default', () => {
    const operator = COLUMNS.find((column) => column.label === 'operator')!;
    for (const spec of specs.filter((each) => 'capability' in each.access)) expect([spec.name, decide(operator.facts, spec.access).allow]).toEqual([spec.name, false]);
  });
});

describe('a spec that forgets a caller kind', () => {
  it('is refused for that kind, and the matrix names each cell that breaks the contract', () => {
    const slip = forgetting(specOf('get-account'), 'session');
    expect(decide({ kind: 'session', role: 'owner' }, slip.access)).toEqual({ allow: false, message: 'This endpoint is for API keys, not console sessions.' });
    expect(accessProblems([slip])).toEqual(
      ['owner', 'admin', 'developer', 'billing', 'viewer'].map((role) => `GET /api/v1/account × session(${role}): expected allow (Teams: read), got forbidden`),
    );
  });
});

describe('principals', () => {
  const session = { kind: 'session', partitionId: 'acc_1', mode: 'live', holderId: 'sub-1', email: 'a@example.com', rateLimit: 60, accountId: 'acc_1', role: 'owner', memberships: [{ accountId: 'acc_1', role: 'owner' }] } as const;
  const key = { kind: 'apiKey', partitionId: 'acc_1', mode: 'live', keyId: 'key_1', rateLimit: 60, scopes: ['read'] } as const;

  it("a session acts with its role in the account its request picked; a role this code does not know grants nothing", () => {
    expect(callerOf(session)).toEqual({ kind: 'session', role: 'owner', accountId: 'acc_1' });
    expect(callerOf({ ...session, role: 'viewer' } as Principal)).toEqual({ kind: 'session', role: 'viewer', accountId: 'acc_1' });
    expect(decide(callerOf({ ...session, role: 'superuser' } as unknown as Principal), specOf('get-credits').access).allow).toBe(false);
    expect(ROLE_CAPABILITIES.owner).toEqual(['read', 'generate', 'webhooks', 'keys', 'billing', 'members']);
  });

  it("a session that is no member of the account it asked for reaches only the holder's own routes, refused with why", () => {
    const outsider = { ...session, partitionId: '', accountId: 'acc_2', role: null, refusal: 'You are not a member of acc_2.' } as Principal;
    expect(() => checkAccess(outsider, specOf('get-account').access)).toThrow('You are not a member of acc_2.');
    expect(() => checkAccess(outsider, specOf('generate').access)).toThrow('You are not a member of acc_2.');
    expect(() => checkAccess(outsider, specOf('list-accounts').access)).not.toThrow();
    // The holder's own routes are no key's.
    expect(() => checkAccess({ ...key, scopes: ['read', 'generate', 'webhooks'] }, specOf('list-accounts').access)).toThrow('This endpoint is for signed-in account holders');
  });

  it('keeps the messages keys get: a missing scope, a route for account holders', () => {
    expect(() => checkAccess(key, specOf('generate').access)).toThrow('This API key does not have the "generate" scope this endpoint needs.');
    expect(() => checkAccess(key, specOf('list-keys').access)).toThrow('This endpoint is for signed-in account holders (a console session), not API keys.');
    expect(() => checkAccess({ ...session, role: 'viewer' } as Principal, specOf('create-checkout').access)).toThrow(
      'Your role in acc_1 (viewer) may not manage billing; a role that may: owner, admin, billing.',
    );
    expect(() => checkAccess({ ...session, role: 'viewer' } as Principal, specOf('generate').access)).toThrow(
      'Your role in acc_1 (viewer) may not generate; a role that may: owner, admin, developer.',
    );
    expect(() => checkAccess({ ...session, role: 'billing' } as Principal, specOf('create-key').access)).toThrow(
      'Your role in acc_1 (billing) may not manage API keys; a role that may: owner, admin, developer.',
    );
  });
});
