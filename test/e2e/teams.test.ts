import type { LocalStack } from '#bin/local-stack/stack';
import { addMember } from '#domain/accounts/members';
import { OPERATOR_STAMP } from '#domain/shared/audit';
import { signedInHolder, type SignedIn } from '#test-support/identity';
import { call, startTestApi, type Json } from '#test-support/local-api';
import { pollFor, pollUntil } from '#test-support/wait';

/**
 * Teams end to end (issue 36, CONTRACT.md "Teams") through the local gateway with the
 * authorizer's cache on and a TTL of 2 s: members listed, roles changed and members removed by
 * real concurrent requests, the owner invariant under them, and a removed member locked out
 * within the TTL. Members join through the operator's add, or by invitation (the mail printed in
 * the stack's log, as the identity server prints its codes).
 */
const TTL_S = 2;
let stack: LocalStack;

beforeAll(async () => {
  stack = await startTestApi({ AUTH_CACHE_TTL_SECONDS: String(TTL_S) });
});
afterAll(async () => {
  await stack.stop();
});

const send = <T = Json>(token: string, method: string, path: string, options: { body?: unknown; account?: string } = {}) =>
  call<T>(stack.baseUrl, path, {
    method,
    key: token,
    headers: { ...(options.account && { 'Vidgen-Account': options.account }), ...(options.body !== undefined && { 'Content-Type': 'application/json' }) },
    ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
  });

/** A holder whose first request opened their own account. */
async function holder(): Promise<SignedIn & { own: string }> {
  const signedIn = await signedInHolder(stack);
  const own = (await send(signedIn.accessToken, 'GET', '/account')).body.data!.account_id as string;
  return { ...signedIn, own };
}

/** Joins `who` to `accountId` as `role`, then waits out the cached authorization until their token acts there. */
async function join(who: SignedIn, accountId: string, role: 'owner' | 'admin' | 'developer' | 'billing' | 'viewer') {
  await addMember(stack.context.team, { accountId, holderId: who.holderId, email: who.email, role }, OPERATOR_STAMP, stack.context.clock());
  const reply = await pollFor(() => send(who.accessToken, 'GET', '/account', { account: accountId }), (answer) => answer.status === 200, { timeoutMs: (TTL_S + 5) * 1000, everyMs: 200 });
  expect(reply.status).toBe(200);
}

describe('members', () => {
  it('are listed for owners and admins with emails and roles; other roles get 403 naming the roles that may', async () => {
    const [alice, dev, view] = [await holder(), await holder(), await holder()];
    await join(dev, alice.own, 'developer');
    await join(view, alice.own, 'viewer');
    const list = await send(alice.accessToken, 'GET', '/account/members');
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual({
      members: [
        { holder_id: alice.holderId, email: alice.email, role: 'owner', joined_at: expect.any(String) },
        { holder_id: dev.holderId, email: dev.email, role: 'developer', joined_at: expect.any(String) },
        { holder_id: view.holderId, email: view.email, role: 'viewer', joined_at: expect.any(String) },
      ],
      invitations: [],
    });
    const refused = await send(view.accessToken, 'GET', '/account/members', { account: alice.own });
    expect([refused.status, refused.body.error]).toEqual([403, { code: 'forbidden', message: `Your role in ${alice.own} (viewer) may not manage members or account settings; a role that may: owner, admin.` }]);
    const generate = await send(view.accessToken, 'POST', '/generate', { account: alice.own, body: { prompt: 'a kite', duration: 4 } });
    expect([generate.status, generate.body.error?.message]).toEqual([403, `Your role in ${alice.own} (viewer) may not generate; a role that may: owner, admin, developer.`]);
    // GET /accounts, afresh: their own account first, then alice's.
    expect((await send(dev.accessToken, 'GET', '/accounts')).body.data).toEqual({ accounts: [{ account_id: dev.own, role: 'owner' }, { account_id: alice.own, role: 'developer' }] });

    // An admin manages members, not owners.
    expect((await send(alice.accessToken, 'PATCH', `/account/members/${dev.holderId}`, { body: { role: 'admin' } })).body.data).toMatchObject({ holder_id: dev.holderId, role: 'admin' });
    await pollFor(() => send(dev.accessToken, 'GET', '/account/members', { account: alice.own }), (answer) => answer.status === 200, { timeoutMs: (TTL_S + 5) * 1000, everyMs: 200 });
    // The last owner: last_owner comes before the admin's own refusal (the judge's order).
    const demoteOwner = await send(dev.accessToken, 'PATCH', `/account/members/${alice.holderId}`, { account: alice.own, body: { role: 'viewer' } });
    expect([demoteOwner.status, demoteOwner.body.error?.code]).toEqual([409, 'last_owner']);
    const makeOwner = await send(dev.accessToken, 'PATCH', `/account/members/${view.holderId}`, { account: alice.own, body: { role: 'owner' } });
    expect([makeOwner.status, makeOwner.body.error?.message]).toEqual([403, 'Only an owner may make an owner.']);
    expect((await send(dev.accessToken, 'PATCH', `/account/members/${view.holderId}`, { account: alice.own, body: { role: 'billing' } })).status).toBe(200);
    const badRole = await send(alice.accessToken, 'PATCH', `/account/members/${view.holderId}`, { body: { role: 'superuser' } });
    expect([badRole.status, badRole.body.error?.code, badRole.body.error?.message]).toEqual([400, 'validation_error', expect.stringMatching(/^role: /)]);
    expect((await send(alice.accessToken, 'DELETE', '/account/members/nobody')).status).toBe(404);

    const audit = (await send(alice.accessToken, 'GET', '/audit-events')).body.data!.events as Json[];
    expect(audit.map((event) => [event.action, event.actor.type, event.target.id, event.details])).toEqual([
      ['member.role_changed', 'holder', view.holderId, { role: { from: 'viewer', to: 'billing' } }],
      ['member.role_changed', 'holder', dev.holderId, { role: { from: 'developer', to: 'admin' } }],
      ['member.joined', 'operator', view.holderId, { email: view.email, role: 'viewer' }],
      ['member.joined', 'operator', dev.holderId, { email: dev.email, role: 'developer' }],
    ]);
  });

  it('two owners demoting each other at once: one 200, one 409 last_owner, one owner left, every round', async () => {
    for (let round = 0; round < 4; round += 1) {
      const [a, b] = [await holder(), await holder()];
      await join(b, a.own, 'owner');
      const replies = await Promise.all([
        send(a.accessToken, 'PATCH', `/account/members/${b.holderId}`, { body: { role: 'admin' } }),
        send(b.accessToken, 'PATCH', `/account/members/${a.holderId}`, { account: a.own, body: { role: 'admin' } }),
      ]);
      expect(replies.map((reply) => [reply.status, reply.body.error?.code ?? null]).sort()).toEqual([
        [200, null],
        [409, 'last_owner'],
      ]);
      const members = (await send(a.accessToken, 'GET', '/account/members', { account: a.own })).body;
      // Whoever is left owner reads the list (the other is an admin now: also allowed).
      expect((members.data!.members as Json[]).filter((member) => member.role === 'owner')).toHaveLength(1);
      expect((await stack.context.team.state(a.own, [])).owners).toBe(1);
    }
  });

  it('a removal against a demotion at once, and three owners each removing the other two: an owner always remains', async () => {
    const [a, b, c] = [await holder(), await holder(), await holder()];
    await join(b, a.own, 'owner');
    await join(c, a.own, 'owner');
    const replies = await Promise.all([
      send(a.accessToken, 'DELETE', `/account/members/${b.holderId}`),
      send(a.accessToken, 'DELETE', `/account/members/${c.holderId}`),
      send(b.accessToken, 'DELETE', `/account/members/${a.holderId}`, { account: a.own }),
      send(b.accessToken, 'DELETE', `/account/members/${c.holderId}`, { account: a.own }),
      send(c.accessToken, 'DELETE', `/account/members/${a.holderId}`, { account: a.own }),
      send(c.accessToken, 'PATCH', `/account/members/${b.holderId}`, { account: a.own, body: { role: 'viewer' } }),
    ]);
    expect(replies.every((reply) => [200, 403, 404, 409].includes(reply.status))).toBe(true);
    const { owners, roles } = await stack.context.team.state(a.own, [a.holderId, b.holderId, c.holderId]);
    expect(owners).toBeGreaterThanOrEqual(1);
    expect([...roles.values()].filter((role) => role === 'owner')).toHaveLength(owners);
  });

  it('a removed member loses the account within the TTL; the last owner can neither leave nor step down', async () => {
    const [alice, dev] = [await holder(), await holder()];
    await join(dev, alice.own, 'developer');
    expect((await send(alice.accessToken, 'DELETE', `/account/members/${dev.holderId}`)).body.data).toEqual({ holder_id: dev.holderId, removed: true });
    const started = Date.now();
    const locked = await pollFor(() => send(dev.accessToken, 'GET', '/account', { account: alice.own }), (answer) => answer.status === 403, { timeoutMs: (TTL_S + 5) * 1000, everyMs: 200 });
    expect([locked.status, locked.body.error?.message]).toEqual([403, `You are not a member of ${alice.own}.`]);
    expect(Date.now() - started).toBeLessThan((TTL_S + 5) * 1000);
    // Their own account is untouched.
    expect((await send(dev.accessToken, 'GET', '/account')).body.data!.account_id).toBe(dev.own);

    const leave = await send(alice.accessToken, 'DELETE', `/account/members/${alice.holderId}`);
    expect([leave.status, leave.body.error?.code]).toEqual([409, 'last_owner']);
    const stepDown = await send(alice.accessToken, 'PATCH', `/account/members/${alice.holderId}`, { body: { role: 'admin' } });
    expect([stepDown.status, stepDown.body.error?.code]).toEqual([409, 'last_owner']);
    expect((await send(alice.accessToken, 'GET', '/audit-events')).body.data!.events[0]).toMatchObject({ action: 'member.removed', target: { type: 'member', id: dev.holderId }, details: { role: 'developer' } });
  });
});

describe('invitations', () => {
  it('invite, the mail in the log, GET /invitations, accept, GET /accounts lists both; another address gets 404; revoke', async () => {
    const [alice, bob, mallory] = [await holder(), await holder(), await holder()];
    const logged: string[] = [];
    const log = jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void logged.push(args.join(' ')));
    let invitation: Json;
    try {
      const invited = await send(alice.accessToken, 'POST', '/account/members', { body: { email: bob.email.toUpperCase(), role: 'developer' } });
      expect([invited.status, invited.body.data]).toEqual([
        200,
        { invitation_id: expect.stringMatching(/^inv_[0-9A-Z]{26}$/), email: bob.email, role: 'developer', invited_by: alice.holderId, created_at: expect.any(String), expires_at: expect.any(String) },
      ]);
      invitation = invited.body.data!;
      expect(Date.parse(invitation.expires_at as string) - Date.parse(invitation.created_at as string)).toBe(7 * 24 * 60 * 60 * 1000);
      const line = await pollUntil(() => logged.find((entry) => entry.startsWith(`mail: invitation for ${bob.email} `)), { what: 'the invitation mail in the log' });
      expect(line).toBe(
        `mail: invitation for ${bob.email} to join ${alice.own} as developer, from ${alice.email}, until ${invitation.expires_at}: ${new URL(stack.baseUrl).origin}/console/invitations (a deployed stack sends this with SES)`,
      );
    } finally {
      log.mockRestore();
    }
    expect((await send(alice.accessToken, 'GET', '/account/members')).body.data!.invitations).toEqual([invitation]);
    // A member's own address, and a bad one, are refused naming the field.
    const member = await send(alice.accessToken, 'POST', '/account/members', { body: { email: alice.email, role: 'viewer' } });
    expect([member.status, member.body.error?.code, member.body.error?.message]).toEqual([400, 'validation_error', `email: ${alice.email} is already a member of ${alice.own}.`]);
    const badEmail = await send(alice.accessToken, 'POST', '/account/members', { body: { email: 'nobody', role: 'viewer' } });
    expect([badEmail.status, badEmail.body.error?.message]).toEqual([400, expect.stringMatching(/^email: /)]);

    // Bound to the verified address: another holder neither sees it nor can accept it, and learns nothing.
    expect((await send(mallory.accessToken, 'GET', '/invitations')).body.data).toEqual({ invitations: [] });
    const stolen = await send(mallory.accessToken, 'POST', `/invitations/${invitation.invitation_id}/accept`);
    expect([stolen.status, stolen.body.error]).toEqual([404, { code: 'not_found', message: `No open invitation ${invitation.invitation_id} for you.` }]);

    const mine = await pollFor(() => send(bob.accessToken, 'GET', '/invitations'), (answer) => (answer.body.data?.invitations as Json[] | undefined)?.length === 1);
    expect(mine.body.data).toEqual({ invitations: [{ ...invitation, account_id: alice.own }] });
    const accepted = await send(bob.accessToken, 'POST', `/invitations/${invitation.invitation_id}/accept`);
    expect([accepted.status, accepted.body.data]).toEqual([200, { account_id: alice.own, role: 'developer' }]);
    expect((await send(bob.accessToken, 'GET', '/accounts')).body.data).toEqual({ accounts: [{ account_id: bob.own, role: 'owner' }, { account_id: alice.own, role: 'developer' }] });
    expect((await send(bob.accessToken, 'POST', `/invitations/${invitation.invitation_id}/accept`)).status).toBe(404);
    const members = (await send(alice.accessToken, 'GET', '/account/members')).body.data!;
    expect([(members.members as Json[]).map((each) => [each.holder_id, each.role]), members.invitations]).toEqual([
      [
        [alice.holderId, 'owner'],
        [bob.holderId, 'developer'],
      ],
      [],
    ]);
    // Bob acts on alice's account once his cached authorization expires.
    await pollFor(() => send(bob.accessToken, 'GET', '/account', { account: alice.own }), (answer) => answer.status === 200, { timeoutMs: (TTL_S + 5) * 1000, everyMs: 200 });
    // A developer may not invite.
    const byDeveloper = await send(bob.accessToken, 'POST', '/account/members', { account: alice.own, body: { email: 'carol@example.com', role: 'viewer' } });
    expect([byDeveloper.status, byDeveloper.body.error?.message]).toEqual([403, `Your role in ${alice.own} (developer) may not manage members or account settings; a role that may: owner, admin.`]);

    // Revoke: gone from the list, no longer accepted, a second revoke 404.
    const carol = (await send(alice.accessToken, 'POST', '/account/members', { body: { email: 'carol@example.com', role: 'viewer' } })).body.data!;
    const revoked = await send(alice.accessToken, 'DELETE', `/account/members/invitations/${carol.invitation_id}`);
    expect([revoked.status, revoked.body.data]).toEqual([200, { invitation_id: carol.invitation_id, revoked: true }]);
    const again = await send(alice.accessToken, 'DELETE', `/account/members/invitations/${carol.invitation_id}`);
    expect([again.status, again.body.error]).toEqual([404, { code: 'not_found', message: `No open invitation ${carol.invitation_id} in ${alice.own}.` }]);
    expect((await send(alice.accessToken, 'GET', '/account/members')).body.data!.invitations).toEqual([]);

    const audit = (await send(alice.accessToken, 'GET', '/audit-events')).body.data!.events as Json[];
    expect(audit.map((event) => [event.action, event.actor.id, event.target.id])).toEqual([
      ['invitation.revoked', alice.holderId, carol.invitation_id],
      ['member.invited', alice.holderId, carol.invitation_id],
      ['member.joined', bob.holderId, bob.holderId],
      ['member.invited', alice.holderId, invitation.invitation_id],
    ]);
  });
});
