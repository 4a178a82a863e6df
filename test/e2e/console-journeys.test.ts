import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { LocalStack } from '#bin/local-stack/stack';
import { setAccess } from '#domain/accounts/account-admin';
import { CHROMIUM_ARGS, chromiumExecutable, watchedTab, type WatchedTab } from '#test-support/browser';
import { codeFromLog, codesInLog, newCodeFromLog } from '#test-support/identity-codes';
import { GOOD_PASSWORD, signedInHolder } from '#test-support/identity';
import { startTestApi } from '#test-support/local-api';

/**
 * The console's journeys in a real headless Chromium against the local stack (issue 31): a new
 * holder's first run from the Overview, a test subscription in test mode, the playground as a form
 * with a price, a mode switch that keeps what was typed, the sign-in pages' messages, the
 * confirmations, and a console link opened in a new tab. Each test has its own holder and
 * browser context; no console error and no failed request is allowed unless the test expects it.
 */
jest.setTimeout(240_000);

const run = promisify(execFile);
let stack: LocalStack;
let browser: Browser;
let origin: string;
const logged: string[] = [];

beforeAll(async () => {
  const log = console.log;
  jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
    const line = args.map(String).join(' ');
    logged.push(line);
    if (line.startsWith('identity:')) log(line);
  });
  stack = await startTestApi({ SIM_DELAY_SECONDS: '2', PROVIDER: 'simulated', AUTH_CACHE_TTL_SECONDS: '0' }, { console: true });
  origin = `http://127.0.0.1:${stack.apiPort}`;
  browser = await chromium.launch({ executablePath: chromiumExecutable(), headless: true, args: [...CHROMIUM_ARGS] });
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  jest.restoreAllMocks();
});

type Tab = WatchedTab;

/** A fresh browser context (no storage) with one page, watched for errors. */
const newTab = (): Promise<Tab> => watchedTab(browser);

/** A verified holder (made as the admin CLI makes one), signed in through the console's form. */
async function signedIn(tab: Tab): Promise<{ email: string; accountId: string; accessToken: string }> {
  const holder = await signedInHolder(stack);
  await tab.page.goto(`${origin}/console/`);
  await tab.page.getByLabel('Email').fill(holder.email);
  await tab.page.getByLabel('Password').fill(GOOD_PASSWORD);
  await tab.page.getByRole('button', { name: 'Sign in' }).click();
  await tab.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  const account = await fetch(`${stack.baseUrl}/account`, { headers: { Authorization: `Bearer ${holder.accessToken}` } });
  return { email: holder.email, accountId: ((await account.json()) as { data: { account_id: string } }).data.account_id, accessToken: holder.accessToken };
}

async function open(page: Page, label: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: label }).waitFor();
}

async function testMode(page: Page, on = true): Promise<void> {
  const toggle = page.getByRole('switch', { name: 'Test mode' });
  if (on) await toggle.check();
  else await toggle.uncheck();
  await page.getByTestId('test-banner').waitFor({ state: on ? 'visible' : 'detached' });
}

/** Drops a refusal a test caused on purpose: the response, and the console line Chromium logs for it. */
function expectedRefusal(tab: Tab, response: RegExp, status: number): void {
  for (const pattern of [response, new RegExp(`status of ${status} `)]) {
    const index = tab.problems.findIndex((line) => pattern.test(line));
    expect([pattern, index >= 0]).toEqual([pattern, true]);
    tab.problems.splice(index, 1);
  }
}

async function done(tab: Tab): Promise<void> {
  await tab.context.close();
  expect(tab.problems).toEqual([]);
}

describe('a new holder', () => {
  it("runs the Overview's quick start as shown: a test key made there, on test credits", async () => {
    const tab = await newTab();
    await signedIn(tab);
    const quickStart = tab.page.locator('section', { has: tab.page.getByRole('heading', { name: 'Quick start' }) });
    await quickStart.getByRole('button', { name: 'Create a test key' }).click();
    const commands = quickStart.getByTestId('quick-start');
    await commands.getByText(/vg_test_\w{40}/).waitFor();
    const script = await commands.innerText();
    expect(script).not.toContain('vg_live_');
    const { stdout } = await run('bash', ['-c', script], { timeout: 30_000 });
    // The start, then the list: both succeed, in test mode.
    expect(stdout).toMatch(/"video_id":"vid_\w+"/);
    expect(stdout).toContain('"livemode":false');
    expect(stdout).not.toMatch(/"error":\{/);
    // The key is an ordinary test key, listed on the API keys page.
    await open(tab.page, 'API keys');
    await tab.page.locator('tr', { hasText: 'Quick start' }).getByText('test', { exact: true }).waitFor();
    await done(tab);
  });

  it('starts a test subscription on test-mode Billing, then makes an image and a vid-2-0 video in test mode; ending it refuses them again', async () => {
    const tab = await newTab();
    const { page } = tab;
    await signedIn(tab);
    await testMode(page);
    // Without one, test mode refuses what live mode refuses, and the price says where to go.
    await open(page, 'Playground');
    await page.getByRole('radio', { name: 'Image' }).check();
    await page.getByLabel(/^Prompt/).fill('a red kite over green hills');
    await page.getByTestId('quote').getByRole('link', { name: 'Start a test subscription' }).click();
    await page.getByRole('heading', { level: 1, name: 'Billing' }).waitFor();
    const subscription = page.locator('section', { has: page.getByRole('heading', { name: 'Test subscription' }) });
    await subscription.getByText(/play money/).waitFor();
    await page.getByTestId('paid-access').getByText(/^No/).waitFor();
    await subscription.getByRole('button', { name: 'Start test subscription' }).dblclick();
    await subscription.getByTestId('test-subscription').getByText(/^On/).waitFor();
    await page.getByTestId('paid-access').getByText('Yes', { exact: true }).waitFor();
    await page.getByTestId('subscription-status').getByText('Active').waitFor();

    await open(page, 'Playground');
    await expect(page.getByRole('radio', { name: 'Image' }).isChecked()).resolves.toBe(true);
    // The price read again since the subscription started (the one kept from before may show while it is read).
    await page.getByTestId('quote').getByText(/^Costs \d+ credits?; your test balance is/).waitFor();
    await expect(page.getByTestId('quote').innerText()).resolves.not.toMatch(/paid access/);
    await page.getByRole('button', { name: /^Start image in test mode/ }).click();
    await page.getByTestId('playground-image').waitFor({ timeout: 60_000 });
    await page.getByRole('radio', { name: 'Video' }).check();
    await page.getByLabel(/^Prompt/).fill('a paper boat on a pond');
    await page.getByLabel(/^Model/).selectOption('vid-2-0');
    await page.getByLabel(/^Duration/).fill('3');
    await page.getByRole('button', { name: /^Start video in test mode/ }).click();
    await page.locator('[data-testid="playground-result"][data-status="completed"]').waitFor({ timeout: 60_000 });

    // Ended, the refusal is back, to rehearse it again.
    await open(page, 'Billing');
    await subscription.getByRole('button', { name: 'End test subscription' }).click();
    await subscription.getByTestId('test-subscription').getByText(/^Off/).waitFor();
    await page.getByTestId('subscription-status').getByText('Canceled').waitFor();
    await open(page, 'Playground');
    await page.getByTestId('quote').getByText(/needs paid access/).waitFor();
    await done(tab);
  });
});

describe('the playground', () => {
  it('reads as a form: plain labels and help, image URLs only for image-to-video, the price before starting', async () => {
    const tab = await newTab();
    const { page } = tab;
    await signedIn(tab);
    await testMode(page);
    await open(page, 'Playground');
    const form = page.getByRole('form', { name: 'Parameters' });
    await form.getByLabel(/^Prompt/).waitFor();
    const text = await form.innerText();
    expect(text).not.toMatch(/`|GET \/|POST \/|capabilities\./);
    for (const label of ['Prompt', 'Model', 'Generation type', 'Aspect ratio', 'Duration', 'Resolution', 'Seed', 'Negative prompt']) {
      await expect(form.getByText(label, { exact: false }).first().isVisible()).resolves.toBe(true);
    }
    expect(text).not.toMatch(/\b(aspect ratio|generation type|negative prompt)\b(?! \()/);
    await expect(form.getByLabel(/Image URL/i).count()).resolves.toBe(0);

    // The price comes from POST /quote, before anything starts.
    const price = page.getByTestId('quote');
    await price.getByText('25 credits').waitFor();
    await form.getByLabel(/^Duration/).fill('3');
    await price.getByText('15 credits').waitFor();
    await form.getByLabel(/^Model/).selectOption('vid-2-0');
    await price.getByText('23 credits').waitFor();
    await expect(page.getByRole('button', { name: /^Start video in test mode/ }).innerText()).resolves.toContain('23 credits');

    await form.getByLabel(/^Generation type/).selectOption('image_to_video');
    await form.getByLabel(/^Image URL/).waitFor();
    await form.getByLabel(/^End image URL/).waitFor();
    // A model without end images does not offer one.
    await form.getByLabel(/^Model/).selectOption('vid-2-0-fast');
    await form.getByLabel(/^End image URL/).waitFor({ state: 'detached' });
    await done(tab);
  });

  it('keeps the prompt across a mode switch; the gallery keeps its filters', async () => {
    const tab = await newTab();
    const { page } = tab;
    await signedIn(tab);
    await open(page, 'Playground');
    await page.getByRole('radio', { name: 'Image' }).check();
    await page.getByLabel(/^Prompt/).fill('a lighthouse at dusk');
    await testMode(page);
    await page.getByRole('heading', { level: 1, name: 'Playground' }).waitFor();
    await expect(page.getByLabel(/^Prompt/).inputValue()).resolves.toBe('a lighthouse at dusk');
    await expect(page.getByRole('radio', { name: 'Image' }).isChecked()).resolves.toBe(true);

    await open(page, 'Generations');
    await page.getByLabel('Kind').selectOption('image');
    await page.getByLabel('Status').selectOption('completed');
    await page.waitForURL(/kind=image/);
    await testMode(page, false);
    await page.getByRole('heading', { level: 1, name: 'Generations' }).waitFor();
    await expect(page.getByLabel('Kind').inputValue()).resolves.toBe('image');
    await expect(page.getByLabel('Status').inputValue()).resolves.toBe('completed');
    expect(new URL(page.url()).searchParams.get('kind')).toBe('image');
    await done(tab);
  });
});

describe('words and figures', () => {
  it('counts "1 image", labels the chart\'s first day whole with a y-axis, and says "Past due" in words', async () => {
    const tab = await newTab();
    const { page } = tab;
    const { accountId, accessToken } = await signedIn(tab);
    // Images need paid access in test mode too: a test subscription gives it.
    const subscribed = await fetch(`${stack.baseUrl}/billing/test-subscription`, { method: 'POST', headers: { Authorization: `Bearer ${accessToken}`, 'Vidgen-Mode': 'test' } });
    expect(subscribed.status).toBe(200);
    await testMode(page);
    await open(page, 'Playground');
    await page.getByRole('radio', { name: 'Image' }).check();
    await page.getByLabel(/^Prompt/).fill('a single pear');
    await page.getByRole('button', { name: /^Start image/ }).click();
    await page.getByTestId('playground-image').waitFor({ timeout: 60_000 });
    await open(page, 'Generations');
    await page.getByLabel('Kind').selectOption('image');
    await page.getByText('1 image in test mode').waitFor();

    await open(page, 'Overview');
    const chart = page.getByRole('img', { name: /Credits spent per day/ });
    await chart.waitFor();
    const frame = (await chart.boundingBox())!;
    const first = (await chart.locator('[data-axis="x"] text').first().boundingBox())!;
    expect(first.x).toBeGreaterThanOrEqual(frame.x);
    const ticks = await chart.locator('[data-axis="y"] text').allTextContents();
    expect(ticks.length).toBeGreaterThanOrEqual(2);
    expect(ticks).toContain('0');

    await setAccess(stack.context, accountId, { paidAccess: true, subscriptionStatus: 'past_due' });
    await testMode(page, false);
    await open(page, 'Billing');
    await page.getByText('Past due', { exact: false }).first().waitFor();
    await expect(page.locator('main').innerText()).resolves.not.toContain('past_due');
    await open(page, 'Overview');
    await page.getByText('Past due', { exact: false }).first().waitFor();
    await expect(page.locator('main').innerText()).resolves.not.toContain('past_due');
    await done(tab);
  });
});

describe('billing', () => {
  it("lists the subscription's payment in the purchase history", async () => {
    const tab = await newTab();
    const { page } = tab;
    await signedIn(tab);
    await open(page, 'Billing');
    await page.getByRole('button', { name: 'Subscribe' }).click();
    await page.waitForURL(`${stack.stripe!.url}/checkout/**`);
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.waitForURL(`${origin}/console/billing?checkout=success`);
    const payment = page.getByTestId('billing-history').locator('tr[data-type="subscription"]');
    await payment.getByText('Subscription payment').waitFor();
    await expect(payment.innerText()).resolves.toMatch(/\$20\.00 paid \(invoice in_\w+\)/);
    // The simulated Stripe's pages are not the console's: their misses are not ours.
    tab.problems.splice(0, tab.problems.length, ...tab.problems.filter((line) => !line.includes(stack.stripe!.url)));
    await done(tab);
  });
});

describe('signing in', () => {
  it('verify: a new code clears the old error; sign-in while unverified sends a code and says so', async () => {
    const tab = await newTab();
    const { page } = tab;
    const email = `unverified-${Date.now()}@example.com`;
    await page.goto(`${origin}/console/sign-up`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(GOOD_PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Verify your email' }).waitFor();
    await codeFromLog(logged, email, 'verification');
    await page.getByLabel('Code').fill('000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('alert').getByText('That code is not right').waitFor();
    await page.getByRole('button', { name: 'Send a new code' }).click();
    await page.getByText('A new code is on its way').waitFor();
    await expect(page.getByRole('alert').count()).resolves.toBe(0);
    // The identity server refused the wrong code (Cognito's CodeMismatchException).
    expectedRefusal(tab, /^POST http:\/\/127\.0\.0\.1:\d+\/ 400$/, 400);

    // Left unverified: signing in sends a new code, and the verify page says so.
    const sent = codesInLog(logged, email, 'verification').length;
    await page.goto(`${origin}/console/sign-in`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(GOOD_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Verify your email' }).waitFor();
    const code = await newCodeFromLog(logged, email, 'verification', sent);
    await page.getByText(/not verified yet.*sent a new code/i).waitFor();
    // Signing in unverified is refused (UserNotConfirmedException) before the new code is sent.
    expectedRefusal(tab, /^POST http:\/\/127\.0\.0\.1:\d+\/ 400$/, 400);
    await page.getByLabel('Code').fill(code);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByText('Your email is verified').waitFor();
    await done(tab);
  });

  it('shows the password rules on the reset page', async () => {
    const tab = await newTab();
    const { page } = tab;
    const holder = await signedInHolder(stack);
    await page.goto(`${origin}/console/forgot-password`);
    await page.getByLabel('Email').fill(holder.email);
    await page.getByRole('button', { name: 'Send reset code' }).click();
    const password = page.getByLabel(/^New password/);
    await password.waitFor();
    await expect(page.locator('label', { has: password }).innerText()).resolves.toMatch(/at least 12 characters/);
    await done(tab);
  });

  it('a console link opened in a new tab is signed in; signing out there signs out both', async () => {
    const tab = await newTab();
    const { page, context } = tab;
    await signedIn(tab);
    const [second] = await Promise.all([
      context.waitForEvent('page'),
      page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Usage' }).click({ modifiers: ['Control'] }),
    ]);
    await second.getByRole('heading', { level: 1, name: 'Usage' }).waitFor();
    expect(new URL(second.url()).pathname).toBe('/console/usage');
    // A typed address in another new tab too.
    const third = await context.newPage();
    await third.goto(`${origin}/console/keys`);
    await third.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();

    await second.getByRole('button', { name: 'Sign out' }).click();
    await second.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await third.getByRole('heading', { name: 'Sign in' }).waitFor();
    await done(tab);
  });
});

describe('confirmations', () => {
  it('asks before canceling a task; Keep leaves it running', async () => {
    const tab = await newTab();
    const { page } = tab;
    await signedIn(tab);
    await testMode(page);
    await open(page, 'Playground');
    await page.getByLabel(/^Prompt/).fill('sim:stall a kite that never lands');
    await page.getByRole('button', { name: /^Start video/ }).click();
    await page.getByTestId('playground-result').getByRole('link', { name: /^vid_/ }).click();
    const cancel = page.getByRole('button', { name: /^Cancel/ });
    await cancel.click();
    await page.getByText(/Cancel this video\?/).waitFor();
    await page.getByRole('button', { name: 'Keep it running' }).click();
    await expect(page.getByRole('button', { name: 'Yes, cancel it' }).count()).resolves.toBe(0);
    await cancel.click();
    await page.getByRole('button', { name: 'Yes, cancel it' }).click();
    await page.locator('.badge', { hasText: 'failed' }).first().waitFor();
    await done(tab);
  });

  it("asks before deleting a finished task's files; Keep them changes nothing; a double-click deletes once and the old link 404s", async () => {
    const tab = await newTab();
    const { page } = tab;
    await signedIn(tab);
    await testMode(page);
    await open(page, 'Playground');
    await page.getByLabel(/^Prompt/).fill('a paper boat on a puddle');
    await page.getByRole('button', { name: /^Start video/ }).click();
    await page.getByTestId('playground-result').getByRole('link', { name: /^vid_/ }).click();
    const video = page.getByTestId('result-video');
    await video.waitFor();
    const url = (await video.getAttribute('src'))!;
    expect((await fetch(url)).status).toBe(200);
    const deletes: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'DELETE') deletes.push(request.url());
    });

    await page.getByRole('button', { name: 'Delete files' }).click();
    await page.getByText(/Delete this video's files\?/).waitFor();
    await page.getByRole('button', { name: 'Keep them' }).click();
    await expect(page.getByRole('button', { name: 'Yes, delete the files' }).count()).resolves.toBe(0);
    expect(deletes).toEqual([]);

    await page.getByRole('button', { name: 'Delete files' }).click();
    await page.getByRole('button', { name: 'Yes, delete the files' }).dblclick();
    await page.getByTestId('files-deleted').waitFor();
    expect(deletes).toHaveLength(1);
    await expect(video.count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Delete files' }).count()).resolves.toBe(0);
    expect((await fetch(url)).status).toBe(404);
    await done(tab);
  });

  it('closes the key editor with Cancel, changing nothing', async () => {
    const tab = await newTab();
    const { page } = tab;
    await signedIn(tab);
    await open(page, 'API keys');
    await page.getByLabel('Name', { exact: true }).fill('kept name');
    await page.getByRole('button', { name: 'Create key' }).click();
    const row = page.locator('tr', { hasText: 'kept name' }).first();
    await row.getByRole('button', { name: 'Edit' }).click();
    const form = page.getByRole('form', { name: 'Edit kept name' });
    await form.getByLabel('Name').fill('changed name');
    await form.getByRole('button', { name: 'Cancel' }).click();
    await form.waitFor({ state: 'detached' });
    await expect(page.locator('tr', { hasText: 'changed name' }).count()).resolves.toBe(0);
    await expect(row.getByRole('button', { name: 'Edit' }).getAttribute('aria-expanded')).resolves.toBe('false');
    await done(tab);
  });
});

describe('settings', () => {
  it('keeps results for a number of days, by keyboard: a double-click saves once, a bad number cannot be sent, "for good" clears it', async () => {
    const tab = await newTab();
    const { page } = tab;
    const holder = await signedIn(tab);
    const patches: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'PATCH' && request.url().endsWith('/account')) patches.push(request.postData() ?? '');
    });
    const stored = async () =>
      ((await (await fetch(`${stack.baseUrl}/account`, { headers: { Authorization: `Bearer ${holder.accessToken}` } })).json()) as { data: { output_retention_days: number | null } }).data
        .output_retention_days;
    await open(page, 'Settings');
    const save = page.getByRole('button', { name: 'Save' });
    await expect(page.getByRole('radio', { name: 'for good' }).isChecked()).resolves.toBe(true);
    await expect(save.isDisabled()).resolves.toBe(true);

    await page.getByRole('radio', { name: 'for a number of days' }).check();
    const days = page.getByLabel('Days', { exact: true });
    await days.focus();
    await page.keyboard.type('0');
    await expect(save.isDisabled()).resolves.toBe(true);
    await days.fill('');
    await page.keyboard.type('30');
    await save.dblclick();
    await page.getByRole('status').filter({ hasText: 'Results are deleted 30 days after they complete.' }).waitFor();
    expect(patches).toEqual([JSON.stringify({ output_retention_days: 30 })]);
    await expect(stored()).resolves.toBe(30);

    // A reload starts from what is stored.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    await expect(page.getByLabel('Days', { exact: true }).inputValue()).resolves.toBe('30');
    await page.getByRole('radio', { name: 'for good' }).check();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Results are kept for good.' }).waitFor();
    await expect(stored()).resolves.toBeNull();
    await done(tab);
  });
});

describe('the audit log', () => {
  it('shows who made a key and who changed the retention, filters by action and by who, and exports what it shows', async () => {
    const tab = await newTab();
    const { page } = tab;
    const holder = await signedIn(tab);
    await open(page, 'API keys');
    await page.getByLabel('Name', { exact: true }).fill('audited key');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('tr', { hasText: 'audited key' }).first().waitFor();
    // A change made elsewhere (PATCH /account with the same session): the log holds both.
    const patched = await fetch(`${stack.baseUrl}/account`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${holder.accessToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ output_retention_days: 7 }),
    });
    expect(patched.status).toBe(200);

    await open(page, 'Audit log');
    const rows = page.getByTestId('audit-events').locator('tbody tr');
    const created = rows.filter({ hasText: 'key.created' });
    await created.waitFor();
    await expect(created.innerText()).resolves.toContain(holder.email);
    await expect(created.innerText()).resolves.toContain('audited key');
    await expect(rows.filter({ hasText: 'account.retention_changed' }).innerText()).resolves.toContain('output_retention_days: none → 7');

    await page.getByLabel('Action').selectOption('key.created');
    await expect(rows.count()).resolves.toBe(1);
    await page.getByLabel('Action').selectOption('');
    await page.getByLabel('Who').fill('nobody-like-this');
    await page.getByText('No event matches these filters among those loaded.').waitFor();
    await page.getByLabel('Who').fill(holder.email.toUpperCase());
    await page.getByLabel('Action').selectOption('key.created');
    await expect(rows.count()).resolves.toBe(1);

    const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    expect(file.suggestedFilename()).toMatch(/^vidgen-audit-\d{4}-\d{2}-\d{2}\.csv$/);
    const lines = (await readFile((await file.path())!, 'utf8')).split('\r\n');
    expect(lines[0]).toBe('id,at,actor_type,actor_id,actor_email,action,target_type,target_id,ip,user_agent,details');
    expect(lines.slice(1, -1)).toHaveLength(1);
    expect(lines[1]).toContain(`,${holder.email},key.created,key,key_`);
    await done(tab);
  });
});
