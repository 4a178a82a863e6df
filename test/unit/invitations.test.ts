import { accept, invite, listAccountInvitations, listMine, MAX_INVITATIONS_PER_DAY, revoke, type InvitationDeps } from '#domain/accounts/invitations';
import type { InvitationMail } from '#domain/accounts/ports';
import { newHolderAccount, type IdentityHolder } from '#domain/accounts/holder';
import { ForbiddenError, NotFoundError, ValidationError } from '#domain/shared/errors';
import { auditEntry, type AuditStamp } from '#domain/shared/audit';
import { newAccountId } from '#domain/shared/ids';
import { createMemoryStores } from '#test-support/memory-stores';

/**
 * Invitations on the in-memory stores (design-36 §4): bound to the verified address the identity
 * provider answers now, 7 days by an injected clock, one open invitation per address, a daily
 * quota, and a mail failure that leaves the invitation standing.
 */
const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const DAY = 24 * 60 * 60 * 1000;
const ALICE = { holderId: 'h-alice', email: 'alice@example.com' };
const BOB: IdentityHolder = { holderId: 'h-bob', email: 'bob@example.com', emailVerified: true };
const stampOf = (who: { holderId: string; email: string }): AuditStamp => ({ actor: { type: 'holder', id: who.holderId, email: who.email }, origin: { ip: '127.0.0.1', userAgent: 'jest' } });

async function setup() {
  const stores = createMemoryStores();
  let now = T0;
  const sent: InvitationMail[] = [];
  const errors: string[] = [];
  const counted: string[] = [];
  let mailFails = false;
  const deps: InvitationDeps = {
    team: stores.team,
    invitations: stores.invitations,
    mailer: {
      sendInvitation: async (mail) => {
        if (mailFails) throw new Error('SES said no');
        sent.push(mail);
      },
    },
    telemetry: { error: (message) => void errors.push(message), count: (event) => void counted.push(event) },
    clock: () => new Date(now),
  };
  const home = newHolderAccount(newAccountId(), 0, new Date(T0).toISOString());
  await stores.holders.createWithAccount({ ...ALICE, accountId: home.accountId, createdAt: home.createdAt }, home);
  const bobs = newHolderAccount(newAccountId(), 0, new Date(T0).toISOString());
  await stores.holders.createWithAccount({ holderId: BOB.holderId, email: BOB.email, accountId: bobs.accountId, createdAt: bobs.createdAt }, bobs);
  const actor = { holderId: ALICE.holderId, role: 'owner' as const };
  const inviteBob = (role: 'developer' | 'owner' | 'viewer' = 'developer', email = 'Bob@Example.com ') => invite(deps, { accountId: home.accountId, actor, email, role }, stampOf(ALICE));
  return {
    stores,
    deps,
    sent,
    errors,
    counted,
    accountId: home.accountId,
    actor,
    inviteBob,
    advance: (ms: number) => void (now += ms),
    failMail: () => void (mailFails = true),
  };
}

describe('invitations', () => {
  it('invites a lowercased address for 7 days, mails who, where, as what and until when, and lists it for the account', async () => {
    const { sent, accountId, inviteBob, deps, stores } = await setup();
    const invitation = await inviteBob();
    expect(invitation).toEqual({
      invitationId: expect.stringMatching(/^inv_[0-9A-Z]{26}$/),
      accountId,
      email: 'bob@example.com',
      role: 'developer',
      invitedBy: ALICE.holderId,
      createdAt: new Date(T0).toISOString(),
      expiresAt: new Date(T0 + 7 * DAY).toISOString(),
    });
    expect(sent).toEqual([{ to: 'bob@example.com', accountId, role: 'developer', inviterEmail: ALICE.email, expiresAt: invitation.expiresAt }]);
    expect(await listAccountInvitations(deps, accountId)).toEqual([invitation]);
    expect(stores.auditLog.all(accountId).map((entry) => [entry.action, entry.target, entry.details])).toContainEqual([
      'member.invited',
      { type: 'invitation', id: invitation.invitationId },
      { email: 'bob@example.com', role: 'developer' },
    ]);
  });

  it('replaces the open invitation to the same address on a re-invite: the old id is no longer accepted', async () => {
    const { inviteBob, deps, accountId, advance, sent } = await setup();
    const first = await inviteBob('viewer');
    advance(1000);
    const second = await inviteBob('developer', 'bob@example.com');
    expect(second.invitationId).not.toBe(first.invitationId);
    expect(await listAccountInvitations(deps, accountId)).toEqual([second]);
    expect(sent).toHaveLength(2);
    await expect(accept(deps, BOB, first.invitationId, stampOf(BOB))).rejects.toEqual(new NotFoundError(`No open invitation ${first.invitationId} for you.`));
    expect(await accept(deps, BOB, second.invitationId, stampOf(BOB))).toEqual({ accountId, role: 'developer' });
  });

  it('is accepted only by the holder whose verified address it names; another address gets the same 404 as an unknown id', async () => {
    const { inviteBob, deps, accountId, stores } = await setup();
    const invitation = await inviteBob();
    const mallory: IdentityHolder = { holderId: 'h-mallory', email: 'mallory@example.com', emailVerified: true };
    expect(await listMine(deps, mallory)).toEqual([]);
    await expect(accept(deps, mallory, invitation.invitationId, stampOf(mallory))).rejects.toEqual(new NotFoundError(`No open invitation ${invitation.invitationId} for you.`));
    await expect(accept(deps, BOB, 'inv_01M8EN2K7Q4R6T8V0X2Z4B6D8F', stampOf(BOB))).rejects.toEqual(new NotFoundError('No open invitation inv_01M8EN2K7Q4R6T8V0X2Z4B6D8F for you.'));
    // Bob's own address, as the provider has it now (any case), but not yet verified: 403.
    const unverified = { ...BOB, email: 'BOB@example.com', emailVerified: false };
    await expect(listMine(deps, unverified)).rejects.toEqual(new ForbiddenError('Verify your email address first.'));
    await expect(accept(deps, unverified, invitation.invitationId, stampOf(BOB))).rejects.toEqual(new ForbiddenError('Verify your email address first.'));
    expect((await stores.team.list(accountId)).map((member) => member.holderId)).toEqual([ALICE.holderId]);

    expect(await listMine(deps, { ...BOB, email: 'BOB@example.com' })).toEqual([invitation]);
    expect(await accept(deps, BOB, invitation.invitationId, stampOf(BOB))).toEqual({ accountId, role: 'developer' });
    expect((await stores.team.list(accountId)).map((member) => [member.holderId, member.role])).toEqual([[ALICE.holderId, 'owner'], [BOB.holderId, 'developer']]);
    expect(await listMine(deps, BOB)).toEqual([]);
    expect(stores.auditLog.all(accountId).at(-1)).toMatchObject({ action: 'member.joined', actor: { type: 'holder', id: BOB.holderId }, target: { type: 'member', id: BOB.holderId } });
  });

  it('expires after 7 days by the injected clock: no longer listed, no longer accepted', async () => {
    const { inviteBob, deps, accountId, advance } = await setup();
    const invitation = await inviteBob();
    advance(7 * DAY - 1);
    expect(await listMine(deps, BOB)).toEqual([invitation]);
    advance(1);
    expect(await listMine(deps, BOB)).toEqual([]);
    expect(await listAccountInvitations(deps, accountId)).toEqual([]);
    await expect(accept(deps, BOB, invitation.invitationId, stampOf(BOB))).rejects.toBeInstanceOf(NotFoundError);
  });

  it("refuses a member's address (400 naming email), and accepting where one is already a member (400 naming invitation_id)", async () => {
    const { inviteBob, deps, accountId, actor } = await setup();
    await expect(invite(deps, { accountId, actor, email: 'ALICE@example.com', role: 'viewer' }, stampOf(ALICE))).rejects.toMatchObject({ field: 'email', message: `email: alice@example.com is already a member of ${accountId}.` });
    await expect(invite(deps, { accountId, actor, email: 'not-an-address', role: 'viewer' }, stampOf(ALICE))).rejects.toMatchObject({ field: 'email' });
    await expect(invite(deps, { accountId, actor, email: `${'a'.repeat(250)}@example.com`, role: 'viewer' }, stampOf(ALICE))).rejects.toMatchObject({ field: 'email' });
    const invitation = await inviteBob();
    await accept(deps, BOB, invitation.invitationId, stampOf(BOB));
    // An operator's invitation (no member check by the inviting owner) to a member's address.
    const again = await invite(deps, { accountId, actor: null, email: 'bob@example.org', role: 'viewer' }, stampOf(ALICE));
    const bobElsewhere = { ...BOB, email: 'bob@example.org' };
    await expect(accept(deps, bobElsewhere, again.invitationId, stampOf(BOB))).rejects.toEqual(new ValidationError(`invitation_id: you are already a member of ${accountId}.`, 'invitation_id'));
  });

  it('is for owners and admins, admins not for owners, judged on the role as it stands', async () => {
    const { inviteBob, deps, accountId, stores } = await setup();
    await stores.team.add(accountId, BOB.holderId, 'admin', new Date(T0).toISOString(), auditEntry(stampOf(ALICE), accountId, 'member.joined', { type: 'member', id: BOB.holderId }, {}, new Date(T0)));
    const asBob = (role: 'owner' | 'developer', cached: 'admin' | 'owner' = 'admin') => invite(deps, { accountId, actor: { holderId: BOB.holderId, role: cached }, email: 'carol@example.com', role }, stampOf(BOB));
    await expect(asBob('owner')).rejects.toEqual(new ForbiddenError('Only an owner may make an owner.'));
    // A cached "owner" changes nothing: the role is read afresh.
    await expect(asBob('owner', 'owner')).rejects.toEqual(new ForbiddenError('Only an owner may make an owner.'));
    const made = await asBob('developer');
    const owners = await inviteBob('owner', 'dave@example.com');
    await expect(revoke(deps, { accountId, actor: { holderId: BOB.holderId, role: 'admin' }, invitationId: owners.invitationId }, stampOf(BOB))).rejects.toEqual(new ForbiddenError("Only an owner may revoke an owner's invitation."));
    await revoke(deps, { accountId, actor: { holderId: BOB.holderId, role: 'admin' }, invitationId: made.invitationId }, stampOf(BOB));
    await expect(revoke(deps, { accountId, actor: { holderId: BOB.holderId, role: 'admin' }, invitationId: made.invitationId }, stampOf(BOB))).rejects.toEqual(new NotFoundError(`No open invitation ${made.invitationId} in ${accountId}.`));
    expect((await listAccountInvitations(deps, accountId)).map((each) => each.email)).toEqual(['dave@example.com']);
    expect(stores.auditLog.all(accountId).at(-1)).toMatchObject({ action: 'invitation.revoked', target: { type: 'invitation', id: made.invitationId }, details: { email: 'carol@example.com', role: 'developer' } });
    // Demoted meanwhile: refused by the role as it stands.
    await stores.team.changeRole(accountId, BOB.holderId, 'admin', 'developer', null, auditEntry(stampOf(ALICE), accountId, 'member.role_changed', { type: 'member', id: BOB.holderId }, {}, new Date(T0)));
    await expect(asBob('developer')).rejects.toEqual(new ForbiddenError(`Your role in ${accountId} (developer) may not manage members; a role that may: owner, admin.`));
  });

  it(`sends at most ${MAX_INVITATIONS_PER_DAY} a day per account (400 naming email), again the next UTC day`, async () => {
    const { deps, accountId, actor, advance } = await setup();
    for (let i = 0; i < MAX_INVITATIONS_PER_DAY; i += 1) await invite(deps, { accountId, actor, email: `p${i}@example.com`, role: 'viewer' }, stampOf(ALICE));
    await expect(invite(deps, { accountId, actor, email: 'one-more@example.com', role: 'viewer' }, stampOf(ALICE))).rejects.toMatchObject({ field: 'email', message: expect.stringContaining('invite again tomorrow') });
    advance(DAY);
    await invite(deps, { accountId, actor, email: 'one-more@example.com', role: 'viewer' }, stampOf(ALICE));
  });

  it('a mail that fails leaves the invitation valid, logged and counted', async () => {
    const { inviteBob, deps, failMail, errors, counted } = await setup();
    failMail();
    const invitation = await inviteBob();
    expect(errors).toEqual(['invitation mail not sent']);
    expect(counted).toEqual(['InvitationMailFailed']);
    expect(await listMine(deps, BOB)).toEqual([invitation]);
  });
});
