import { chromium, type Browser, type Page } from 'playwright-core';
import type { LocalStack } from '#bin/local-stack/stack';
import { addMember } from '#domain/accounts/members';
import { OPERATOR_STAMP } from '#domain/shared/audit';
import { CHROMIUM_ARGS, chromiumExecutable, openConsolePage, recordApiRequests, signInToConsole, takeRefusals, watchedTab, type WatchedTab } from '#test-support/browser';
import { GOOD_PASSWORD, signedInHolder, type SignedIn } from '#test-support/identity';
import { call, startTestApi, type Json } from '#test-support/local-api';
import { pollUntil } from '#test-support/wait';

/**
 * Teams in the console (issue 36), in a real headless Chromium against the local stack with the
 * authorizer's cache on and a short TTL: the account switcher, each account's own mode switch,
 * the navigation by role, "Created by" on the keys, a viewer refused with the role that may, a
 * removed member's console falling back to their own account, and the last owner kept; and an
 * invitation made, withdrawn and accepted in a second browser context. Past the invitation test,
 * members join through the operator's add, which is quicker to set up. No console error and no
 * failed request, except the refusals each test causes on purpose, allowed by URL.
 */
jest.setTimeout(240_000);

const TTL_S = 2;
let stack: LocalStack;
let browser: Browser;
let origin: string;

beforeAll(async () => {
  stack = await startTestApi({ PROVIDER: 'simulated', SIM_DELAY_SECONDS: '2', AUTH_CACHE_TTL_SECONDS: String(TTL_S) }, { console: true });
  origin = `http://127.0.0.1:${stack.apiPort}`;
  browser = await chromium.launch({ executablePath: chromiumExecutable(), headless: true, args: [...CHROMIUM_ARGS] });
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

type Holder = SignedIn & { own: string };
type Role = 'owner' | 'admin' | 'developer' | 'billing' | 'viewer';

const api = async <T = Json>(who: SignedIn, path: string, account?: string): Promise<T> => {
  const reply = await call<T>(stack.baseUrl, path, { key: who.accessToken, headers: { ...(account && { 'Vidgen-Account': account }) } });
  expect([path, reply.status]).toEqual([path, 200]);
  return reply.body.data!;
};

/** A verified holder whose first request opened their own account. */
async function holder(): Promise<Holder> {
  const signedIn = await signedInHolder(stack);
  return { ...signedIn, own: (await api<{ account_id: string }>(signedIn, '/account')).account_id };
}

/** Joins `who` to `accountId` as the operator does; their console signs in afterwards, with a token read afresh. */
const join = (who: SignedIn, accountId: string, role: Role) => addMember(stack.context.team, { accountId, holderId: who.holderId, email: who.email, role }, OPERATOR_STAMP, stack.context.clock());

async function signedInTab(who: SignedIn): Promise<WatchedTab> {
  const tab = await watchedTab(browser);
  await signInToConsole(tab.page, origin, who.email, GOOD_PASSWORD);
  return tab;
}

const navigation = (page: Page) => page.getByRole('navigation', { name: 'Main' }).getByRole('link').allInnerTexts();
const switcher = (page: Page) => page.getByLabel('Account', { exact: true });

/** Picks an account in the header's switcher and waits for its page (the overview shows its heading again). */
async function switchAccount(page: Page, accountId: string): Promise<void> {
  await switcher(page).selectOption(accountId);
  await expect(switcher(page).inputValue()).resolves.toBe(accountId);
  await page.getByRole('heading', { level: 1 }).waitFor();
}

const testBanner = (page: Page, on: boolean) => page.getByTestId('test-banner').waitFor({ state: on ? 'visible' : 'detached' });

async function done(tab: WatchedTab): Promise<void> {
  await tab.context.close();
  expect(tab.problems).toEqual([]);
}

it("a developer switches to the owner's account, keeps a mode per account, makes a key the owner sees as theirs, and falls back to their own account once removed", async () => {
  const [owner, dev] = [await holder(), await holder()];
  await join(dev, owner.own, 'developer');
  const devTab = await signedInTab(dev);
  const { page } = devTab;

  // The switcher: their own account first (the default), then the owner's, each with their role.
  await expect(switcher(page).inputValue()).resolves.toBe(dev.own);
  await expect(switcher(page).locator('option').allInnerTexts()).resolves.toEqual([`${dev.own} (owner)`, `${owner.own} (developer)`]);
  // Test mode in their own account; the owner's account opens in its own mode (live), and theirs keeps test.
  await page.getByRole('switch', { name: 'Test mode' }).check();
  await testBanner(page, true);
  await switchAccount(page, owner.own);
  await testBanner(page, false);
  // A developer is offered what a developer may use: no billing, settings, members or audit log.
  await expect(navigation(page)).resolves.toEqual(['Overview', 'API keys', 'Generations', 'Playground', 'Webhooks', 'Usage', 'Invitations']);
  await switchAccount(page, dev.own);
  await testBanner(page, true);
  await switchAccount(page, owner.own);
  await testBanner(page, false);

  // A key in the owner's account: made by the developer, and the request said so.
  const sent = recordApiRequests(page);
  await openConsolePage(page, 'API keys');
  await page.getByLabel('Name', { exact: true }).fill('dev key');
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.getByTestId('new-key').waitFor();
  await sent.answered();
  sent.stop();
  expect(sent.seen.filter((request) => request.method === 'POST').map((request) => [request.path, request.request.headers()['vidgen-account']])).toEqual([['/keys', owner.own]]);
  const { keys } = await api<{ keys: Array<{ key_id: string; name: string; created_by: string }> }>(owner, '/keys');
  expect(keys.map((key) => [key.name, key.created_by])).toEqual([['dev key', dev.holderId]]);

  // The owner's console: every page offered, and the key "Created by" the developer's email.
  const ownerTab = await signedInTab(owner);
  await expect(navigation(ownerTab.page)).resolves.toEqual([
    'Overview',
    'API keys',
    'Generations',
    'Playground',
    'Webhooks',
    'Usage',
    'Billing',
    'Settings',
    'Members',
    'Audit log',
    'Invitations',
  ]);
  await expect(switcher(ownerTab.page).count()).resolves.toBe(0);
  await openConsolePage(ownerTab.page, 'API keys');
  await ownerTab.page.locator(`tr[data-key-id="${keys[0]!.key_id}"] [data-testid="created-by"]`).getByText(dev.email, { exact: true }).waitFor();

  // The owner removes the developer (one removal however fast the confirmation is clicked), and is offered to revoke the key they made.
  await openConsolePage(ownerTab.page, 'Members');
  const row = ownerTab.page.locator(`tr[data-holder-id="${dev.holderId}"]`);
  await row.getByRole('button', { name: 'Remove' }).click();
  const removals = recordApiRequests(ownerTab.page);
  await row.getByRole('button', { name: `Yes, remove ${dev.email}` }).dblclick();
  const removed = ownerTab.page.getByTestId('member-removed');
  await removed.getByText(`${dev.email} is no longer a member.`).waitFor();
  await removed.getByText('One API key they made still works: dev key.').waitFor();
  await removals.answered();
  removals.stop();
  expect(removals.seen.filter((request) => request.method === 'DELETE').map((request) => request.path)).toEqual([`/account/members/${dev.holderId}`]);
  await removed.getByRole('button', { name: 'Revoke it' }).click();
  await removed.getByText('Their keys are revoked.').waitFor();
  await row.waitFor({ state: 'detached' });
  await expect((await api<{ keys: Array<{ revoked_at: string | null }> }>(owner, '/keys')).keys.map((key) => key.revoked_at !== null)).toEqual([true]);
  // The audit log says who did each: the operator's add, the developer's key, the owner's removal and revocation.
  await openConsolePage(ownerTab.page, 'Audit log');
  const entries = ownerTab.page.getByTestId('audit-events').locator('tbody tr');
  await entries.filter({ hasText: 'member.removed' }).filter({ hasText: owner.email }).waitFor();
  // A row's text has its cells apart by tabs: when, who, action, ...
  const rows = (await entries.allInnerTexts()).map((text) => text.split('\t'));
  expect(rows.map((cells) => [cells[2], cells[1]])).toEqual([
    ['key.revoked', owner.email],
    ['member.removed', owner.email],
    ['key.created', dev.email],
    ['member.joined', 'an operator'],
  ]);

  // The developer's console, still on the owner's account, meets "not a member" within the TTL
  // (each opening of Generations reads the gallery again) and falls back to their own account, in its own mode.
  const notice = page.getByTestId('account-notice');
  await pollUntil(
    async () => {
      await openConsolePage(page, 'Overview');
      await openConsolePage(page, 'Generations');
      return notice.isVisible();
    },
    { timeoutMs: (TTL_S + 5) * 1000, everyMs: 100, what: "the developer's console to fall back" },
  );
  await notice.getByText(`You are no longer a member of ${owner.own}.`).waitFor();
  await testBanner(page, true);
  await expect(switcher(page).count()).resolves.toBe(0);
  const ownRead = page.waitForRequest((request) => new URL(request.url()).pathname.startsWith('/api/v1/videos'));
  await openConsolePage(page, 'Overview');
  await openConsolePage(page, 'Generations');
  expect((await ownRead).headers()['vidgen-account']).toBe(dev.own);
  expect(takeRefusals(devTab.problems, new RegExp(`^${origin}/api/v1/videos\\?`), 403)).toBeGreaterThanOrEqual(1);

  await done(devTab);
  await done(ownerTab);
});

it('a viewer switches to the account and is refused a Playground start, with the roles that may', async () => {
  const [owner, viewer] = [await holder(), await holder()];
  await join(viewer, owner.own, 'viewer');
  const tab = await signedInTab(viewer);
  const { page } = tab;
  await switchAccount(page, owner.own);
  await expect(navigation(page)).resolves.toEqual(['Overview', 'Generations', 'Usage', 'Invitations']);
  // The switcher (two long account ids) fits 375 px: no sideways scrolling.
  await page.setViewportSize({ width: 375, height: 800 });
  await expect(page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth')).resolves.toBe(0);
  await page.setViewportSize({ width: 1280, height: 900 });

  // Not offered, yet reachable by its address: the API decides.
  await page.goto(`${origin}/console/playground`);
  await page.getByRole('heading', { level: 1, name: 'Playground' }).waitFor();
  await expect(switcher(page).inputValue()).resolves.toBe(owner.own);
  await page.getByLabel(/^Prompt/).fill('a kite over the sea');
  await page.getByTestId('quote').getByText(/^Costs/).waitFor();
  await page.getByRole('button', { name: /^Start video in live mode/ }).click();
  await page.getByRole('alert').getByText(`Your role in ${owner.own} (viewer) may not generate; a role that may: owner, admin, developer.`).waitFor();
  await page.getByRole('alert').getByText('Ask an owner or admin of the account for a role that may').waitFor();
  expect(takeRefusals(tab.problems, new RegExp(`^${origin}/api/v1/generate$`), 403)).toBe(1);

  // Signed out, the tab forgets the account chosen: the next holder signing in here starts on their own, with no notice.
  await page.getByRole('button', { name: 'Sign out' }).click();
  const next = await holder();
  await signInToConsole(page, origin, next.email, GOOD_PASSWORD);
  await expect(page.evaluate(`sessionStorage.getItem('vidgen.console.account')`)).resolves.toBeNull();
  await expect(page.getByTestId('account-notice').count()).resolves.toBe(0);
  await expect(switcher(page).count()).resolves.toBe(0);
  await done(tab);
});

it("keeps the last owner: the owner's own demotion shows the last_owner message, and the role stays; a member who joins shows on the next opening of Members", async () => {
  const owner = await holder();
  const tab = await signedInTab(owner);
  const { page } = tab;
  await openConsolePage(page, 'Members');
  const role = page.getByLabel(`Role of ${owner.email}`);
  await expect(role.inputValue()).resolves.toBe('owner');
  await role.selectOption('admin');
  const alert = page.locator(`tr[data-holder-id="${owner.holderId}"]`).getByRole('alert');
  await alert.getByText('An account needs an owner.').waitFor();
  await alert.getByText('last_owner', { exact: true }).waitFor();
  await expect(role.inputValue()).resolves.toBe('owner');
  expect((await api<{ members: Array<{ role: string }> }>(owner, '/account/members')).members.map((member) => member.role)).toEqual(['owner']);
  expect(takeRefusals(tab.problems, new RegExp(`^${origin}/api/v1/account/members/${owner.holderId}$`), 409)).toBe(1);

  // Someone who joins meanwhile (an accepted invitation, here the operator's add) shows on the next opening of the page.
  const joiner = await holder();
  await join(joiner, owner.own, 'billing');
  await openConsolePage(page, 'Overview');
  await openConsolePage(page, 'Members');
  await page.locator(`tr[data-holder-id="${joiner.holderId}"]`).getByText(joiner.email).waitFor({ timeout: 5_000 });
  await done(tab);
});

it('a holder who left their only account is offered their invitations, and no page that would be refused', async () => {
  const [leaver, successor] = [await holder(), await holder()];
  await join(successor, leaver.own, 'owner');
  const left = await call(stack.baseUrl, `/account/members/${leaver.holderId}`, { method: 'DELETE', key: leaver.accessToken });
  expect(left.status).toBe(200);
  const tab = await signedInTab(leaver);
  const { page } = tab;
  await page.getByTestId('no-account').getByRole('link', { name: 'your invitations' }).waitFor();
  await expect(navigation(page)).resolves.toEqual(['Invitations']);
  await expect(switcher(page).count()).resolves.toBe(0);
  await done(tab);
});

describe('invitations', () => {
  it('an owner invites (one POST on a double click) and withdraws one (one DELETE); the invitee accepts in a second browser and lands in the account with their role', async () => {
    const [owner, dev] = await Promise.all([holder(), holder()]);
    const ownerTab = await signedInTab(owner);
    const p = ownerTab.page;
    await openConsolePage(p, 'Members');
    await expect(p.locator('select[name="invite-role"]').locator('option').allInnerTexts()).resolves.toEqual(['owner', 'admin', 'developer', 'billing', 'viewer']);
    const sent = recordApiRequests(p);
    await p.getByLabel('Email', { exact: true }).fill(dev.email);
    await p.getByRole('button', { name: 'Invite' }).dblclick();
    await p.getByText(`Invited ${dev.email} as developer`).waitFor();
    await p.getByTestId('invitations').getByText(dev.email).waitFor();
    const elsewhere = `someone-${Date.now()}@example.com`;
    await p.getByLabel('Email', { exact: true }).fill(elsewhere);
    await p.locator('select[name="invite-role"]').selectOption('viewer');
    await p.getByRole('button', { name: 'Invite' }).click();
    const other = p.getByTestId('invitations').locator('tr', { hasText: elsewhere });
    await other.waitFor();
    await other.getByRole('button', { name: 'Revoke' }).dblclick();
    await other.waitFor({ state: 'detached' });
    await sent.answered();
    const writes = sent.seen.filter((request) => request.method !== 'GET').map((request) => `${request.method} ${request.path}`);
    expect(writes).toEqual([
      'POST /account/members',
      'POST /account/members',
      expect.stringMatching(/^DELETE \/account\/members\/invitations\/inv_\w+$/),
    ]);

    // The invitee, in a browser of their own: the invitation, accepted once on a double click, and the account switched to.
    const devTab = await signedInTab(dev);
    const d = devTab.page;
    await openConsolePage(d, 'Invitations');
    const row = d.getByTestId('my-invitations').locator('tr', { hasText: owner.own });
    await row.waitFor();
    await row.getByRole('button', { name: 'Accept' }).dblclick();
    await d.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await expect(d.getByLabel('Account', { exact: true }).inputValue()).resolves.toBe(owner.own);
    await expect(navigation(d)).resolves.toEqual(['Overview', 'API keys', 'Generations', 'Playground', 'Webhooks', 'Usage', 'Invitations']);
    await openConsolePage(d, 'Invitations');
    await d.getByText('No open invitations.').waitFor();
    await openConsolePage(p, 'Overview');
    await openConsolePage(p, 'Members');
    await p.locator(`tr[data-holder-id="${dev.holderId}"]`).waitFor();
    await devTab.context.close();
    await ownerTab.context.close();
    expect({ dev: devTab.problems, owner: ownerTab.problems }).toEqual({ dev: [], owner: [] });
  });
});
