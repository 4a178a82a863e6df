import { chromium, type Browser, type BrowserContext, type Locator, type Page, type Request } from 'playwright-core';
import type { LocalStack } from '#bin/local-stack/stack';
import { grantCredits } from '#domain/accounts/account-admin';
import { CHROMIUM_ARGS, chromiumExecutable, openConsolePage, recordApiRequests, signInToConsole } from '#test-support/browser';
import { GOOD_PASSWORD, signedInHolder, type SignedIn } from '#test-support/identity';
import { call, startTestApi, waitForFinal } from '#test-support/local-api';

/**
 * The console's hardening (issue 31) in a real headless Chromium against the local stack: a
 * double-click does its action once, the Billing page stops re-reading after a checkout, a 429
 * shows as an error (never as empty data), every page fits 375 px, and focus, titles, the skip
 * link and loading states, and the requests a brisk walk through every page costs against the
 * holder's rate limit. Each test signs in a holder of its own in a browser context of its own.
 */
jest.setTimeout(240_000);

type Mode = 'live' | 'test';
type VideoList = { videos: Array<{ video_id: string; credits_used: number }> };

let stack: LocalStack;
let origin: string;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  stack = await startTestApi({ SIM_DELAY_SECONDS: '2', PROVIDER: 'simulated', AUTH_CACHE_TTL_SECONDS: '0' }, { console: true });
  origin = `http://127.0.0.1:${stack.apiPort}`;
  browser = await chromium.launch({ executablePath: chromiumExecutable(), headless: true, args: [...CHROMIUM_ARGS] });
});

afterEach(async () => {
  for (const context of contexts.splice(0)) await context.close();
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

interface Holder {
  holder: SignedIn;
  page: Page;
  /** The API as the holder's session, in a mode. */
  api: <T>(mode: Mode, pathname: string, init?: { method?: string; body?: unknown }) => Promise<T>;
}

/** A new holder, signed in to the console in a browser context of its own. */
async function holderIn(options: { width?: number; height?: number; clock?: boolean } = {}): Promise<Holder> {
  const holder = await signedInHolder(stack);
  const context = await browser.newContext({ viewport: { width: options.width ?? 1280, height: options.height ?? 900 } });
  contexts.push(context);
  const page = await context.newPage();
  if (options.clock) await page.clock.install();
  await signInToConsole(page, origin, holder.email, GOOD_PASSWORD);
  const api = async <T,>(mode: Mode, pathname: string, init: { method?: string; body?: unknown } = {}): Promise<T> => {
    const reply = await call<T>(stack.baseUrl, pathname, {
      method: init.method ?? 'GET',
      headers: { Authorization: `Bearer ${holder.accessToken}`, 'Vidgen-Mode': mode, ...(init.body !== undefined && { 'Content-Type': 'application/json' }) },
      ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
    });
    if (!reply.body.data) throw new Error(`${pathname} answered ${reply.status}: ${JSON.stringify(reply.body.error)}`);
    return reply.body.data;
  };
  return { holder, page, api };
}

/** The requests the page sends to the API whose method and path match, from now on. */
function watchRequests(page: Page, method: string, path: RegExp) {
  const seen: Request[] = [];
  const listener = (request: Request) => {
    const { pathname } = new URL(request.url());
    if (request.method() === method && pathname.startsWith('/api/v1/') && path.test(pathname.slice('/api/v1'.length))) seen.push(request);
  };
  page.on('request', listener);
  return {
    seen,
    paths: () => seen.map((request) => new URL(request.url()).pathname),
    /** Resolves once every request seen so far has its answer. */
    answered: () => Promise.all(seen.map((request) => request.response())),
    stop: () => page.off('request', listener),
  };
}

/**
 * A real double-click, with the page's timers held until both clicks are in. The page learns that
 * an action is pending on a later timer tick (TanStack Query notifies with setTimeout 0); whether
 * that tick comes between the two clicks depends on the machine, so the test makes sure it does not.
 */
async function doubleClick(page: Page, target: Locator): Promise<void> {
  // Shown first: with the timers held, a page still loading never shows it.
  await target.waitFor();
  // A second past the page's own time: after an earlier pause the page's clock is up to a second
  // ahead of this process's, so Date.now() here + 1 s could be in its past ("Cannot fast-forward").
  const pageNow = await page.evaluate<number>('Date.now()');
  await page.clock.pauseAt(pageNow + 1_000);
  await target.dblclick();
  await page.clock.resume();
}

const testMode = async (page: Page) => {
  await page.getByRole('switch', { name: 'Test mode' }).check();
  await page.getByTestId('test-banner').waitFor();
};

/** A busy ledger in `mode`: `entries` grants of one credit, as the admin CLI grants (no API request, so none counted). */
async function busyLedger(accountId: string, mode: Mode, entries: number): Promise<void> {
  for (let entry = 1; entry <= entries; entry += 1) await grantCredits(stack.context, accountId, 1, `grant ${entry} of a busy ledger`, { mode });
}

/** Polls `read` (with an API key: its own rate limit, not the holder's) until `done` says so. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`Still waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('a double-click does its action once', () => {
  it('starts one video per double-click in the playground, charged once', async () => {
    const { page, api } = await holderIn({ clock: true });
    await testMode(page);
    await openConsolePage(page, 'Playground');
    await page.getByLabel('prompt (required)').fill('a paper boat on a pond');
    await page.getByLabel('duration').fill('3');
    const starts = watchRequests(page, 'POST', /^\/generate$/);
    const result = page.getByTestId('playground-result').getByRole('link', { name: /^vid_/ });
    const startButton = page.getByRole('button', { name: 'Start video in test mode' });

    await doubleClick(page, startButton);
    const first = await result.innerText();
    await starts.answered();
    let videos = await api<VideoList>('test', '/videos');
    expect(videos.videos.map((video) => video.video_id)).toEqual([first]);
    await expect(api<{ test: { credits: number } }>('test', '/account')).resolves.toMatchObject({ test: { credits: 1000 - videos.videos[0]!.credits_used } });

    // The same request once more is a new start the person means: one more task, not a replay.
    await doubleClick(page, startButton);
    await result.filter({ hasNotText: first }).waitFor();
    await starts.answered();
    videos = await api<VideoList>('test', '/videos');
    expect(videos.videos).toHaveLength(2);
    const spent = videos.videos.reduce((sum, video) => sum + video.credits_used, 0);
    await expect(api<{ test: { credits: number } }>('test', '/account')).resolves.toMatchObject({ test: { credits: 1000 - spent } });
    // Every start from the console carries an Idempotency-Key; the two starts, two different ones.
    const keys = await Promise.all(starts.seen.map((request) => request.headerValue('idempotency-key')));
    expect(keys.every(Boolean)).toBe(true);
    expect(new Set(keys).size).toBe(2);
  });

  it('takes an end user and metadata typed by keyboard at 375 px, and a double-click sends them in one start', async () => {
    const { page, api } = await holderIn({ width: 375, height: 800, clock: true });
    await testMode(page);
    await openConsolePage(page, 'Playground');
    await page.getByLabel('prompt (required)').fill('a paper boat on a pond');
    await page.getByLabel('duration').fill('3');
    await page.getByLabel('End user').focus();
    await page.keyboard.type('alice');
    await page.getByLabel('Metadata').focus();
    await page.keyboard.type('order=1001');
    await page.keyboard.press('Enter');
    await page.keyboard.type('team = blue');
    expect(await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);

    const starts = watchRequests(page, 'POST', /^\/generate$/);
    await doubleClick(page, page.getByRole('button', { name: 'Start video in test mode' }));
    const id = await page.getByTestId('playground-result').getByRole('link', { name: /^vid_/ }).innerText();
    await starts.answered();
    expect(starts.seen.map((request) => request.postDataJSON())).toEqual([expect.objectContaining({ end_user: 'alice', metadata: { order: '1001', team: 'blue' } })]);
    await expect(api('test', `/videos/${id}`)).resolves.toMatchObject({ end_user: 'alice', metadata: { order: '1001', team: 'blue' } });
  });

  it('creates one key per double-click on Create key, the one whose secret is shown', async () => {
    const { page, api } = await holderIn({ clock: true });
    await openConsolePage(page, 'API keys');
    await page.getByLabel('Name', { exact: true }).fill('double-clicked');
    const creates = watchRequests(page, 'POST', /^\/keys$/);
    await doubleClick(page, page.getByRole('button', { name: 'Create key' }));
    const secret = await page.getByTestId('new-key-value').innerText();
    await creates.answered();
    const { keys } = await api<{ keys: Array<{ name: string; prefix: string }> }>('live', '/keys');
    expect(keys.map((key) => key.name)).toEqual(['double-clicked']);
    expect(secret.startsWith(keys[0]!.prefix)).toBe(true);
  });

  it('adds one webhook endpoint per double-click on Add endpoint', async () => {
    const { page, api } = await holderIn({ clock: true });
    await openConsolePage(page, 'Webhooks');
    await page.getByLabel('URL').fill('http://127.0.0.1:9/double-clicked');
    const creates = watchRequests(page, 'POST', /^\/webhooks$/);
    await doubleClick(page, page.getByRole('button', { name: 'Add endpoint' }));
    await page.getByTestId('webhook-secret').waitFor();
    await creates.answered();
    const { webhooks } = await api<{ webhooks: Array<{ url: string }> }>('live', '/webhooks');
    expect(webhooks.map((webhook) => webhook.url)).toEqual(['http://127.0.0.1:9/double-clicked']);
  });

  it('grants 1000 test credits per double-click on Add test credits', async () => {
    const { page, api } = await holderIn({ clock: true });
    await testMode(page);
    await openConsolePage(page, 'Billing');
    const balance = page.getByTestId('billing-balance');
    await balance.getByText('1000', { exact: true }).waitFor();
    const grants = watchRequests(page, 'POST', /^\/billing\/test-credits$/);
    await doubleClick(page, page.getByRole('button', { name: 'Add test credits' }));
    await page.getByTestId('billing-history').locator('tr[data-type="grant"]').nth(1).waitFor();
    await grants.answered();
    await expect(api<{ test: { credits: number } }>('test', '/account')).resolves.toMatchObject({ test: { credits: 2000 } });
    await balance.getByText('2000', { exact: true }).waitFor();
  });

  it("creates one test key per double-click on the Overview's Create a test key, the one in the commands", async () => {
    const { page, api } = await holderIn({ clock: true });
    const quickStart = page.locator('section', { has: page.getByRole('heading', { name: 'Quick start' }) });
    const creates = watchRequests(page, 'POST', /^\/keys$/);
    await doubleClick(page, quickStart.getByRole('button', { name: 'Create a test key' }));
    await quickStart.getByTestId('quick-start').getByText(/vg_test_[0-9a-z]/i).waitFor();
    await creates.answered();
    const { keys } = await api<{ keys: Array<{ name: string; prefix: string }> }>('test', '/keys');
    expect(keys.map((key) => key.name)).toEqual(['Quick start']);
    await expect(quickStart.getByTestId('quick-start').innerText()).resolves.toContain(`VIDGEN_API_KEY=${keys[0]!.prefix}`);
  });

  it('starts and ends the test subscription with one request per double-click', async () => {
    const { page } = await holderIn({ clock: true });
    await testMode(page);
    await openConsolePage(page, 'Billing');
    const subscription = page.locator('section', { has: page.getByRole('heading', { name: 'Test subscription' }) });
    const starts = watchRequests(page, 'POST', /^\/billing\/test-subscription$/);
    await doubleClick(page, subscription.getByRole('button', { name: 'Start test subscription' }));
    await subscription.getByTestId('test-subscription').getByText(/^On/).waitFor();
    await starts.answered();
    expect(starts.seen).toHaveLength(1);
    const ends = watchRequests(page, 'DELETE', /^\/billing\/test-subscription$/);
    await doubleClick(page, subscription.getByRole('button', { name: 'End test subscription' }));
    await subscription.getByTestId('test-subscription').getByText(/^Off/).waitFor();
    await ends.answered();
    expect(ends.seen).toHaveLength(1);
  });

  it('starts an image after the kind was switched while a video start was still unanswered', async () => {
    const { page } = await holderIn();
    await testMode(page);
    await openConsolePage(page, 'Playground');
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/v1/generate', async (route) => {
      await released;
      await route.continue();
    });
    await page.getByLabel('prompt (required)').fill('a paper boat on a pond');
    await page.getByLabel('duration').fill('3');
    await page.getByRole('button', { name: 'Start video in test mode' }).click();
    await page.getByRole('button', { name: 'Starting…' }).waitFor();
    // Switching the kind clears the form's result; the video's start is still on its way.
    await page.getByRole('radio', { name: 'Image' }).check();
    const imageStart = page.waitForRequest((request) => request.method() === 'POST' && new URL(request.url()).pathname === '/api/v1/generate-image', { timeout: 10_000 });
    await page.getByRole('button', { name: 'Start image in test mode' }).click();
    try {
      await imageStart;
    } finally {
      release();
    }
  });
});

describe('the Billing page after checkout', () => {
  const reads = (page: Page) => watchRequests(page, 'GET', /^\/(account|billing|credits\/transactions)$/);

  it('stops re-reading once the purchase shows, and after a bound when it never does', async () => {
    const { page } = await holderIn({ clock: true });
    await openConsolePage(page, 'Billing');
    await page.locator('[data-pack-id="starter"]').getByRole('button', { name: 'Buy 500 credits for $5.00' }).click();
    await page.waitForURL(`${stack.stripe!.url}/checkout/**`);
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.waitForURL(`${origin}/console/billing?checkout=success`);
    await page.getByTestId('billing-balance').getByText(/^500$/).waitFor();
    await page.getByTestId('checkout-outcome').getByText('Your purchase has arrived').waitFor();
    // Ten minutes of the page's timers, run at once: nothing more is read.
    const afterArrival = reads(page);
    await page.clock.runFor(10 * 60_000);
    expect(afterArrival.paths()).toEqual([]);
    afterArrival.stop();

    // Back from checkout without paying: the purchase never shows; the page reads a few times, then stops and says so.
    await page.locator('[data-pack-id="starter"]').getByRole('button', { name: 'Buy 500 credits for $5.00' }).click();
    await page.waitForURL(`${stack.stripe!.url}/checkout/**`);
    const whileWaiting = reads(page);
    await page.goto(`${origin}/console/billing?checkout=success`);
    await page.getByTestId('billing-balance').getByText(/^500$/).waitFor();
    // Each read is scheduled when the one before has its answer: run the page's timers a minute at a time.
    const gaveUp = page.getByTestId('checkout-outcome').getByText('not confirmed the payment yet');
    for (let minutes = 0; (await gaveUp.count()) === 0; minutes += 1) {
      if (minutes === 30) throw new Error(`Still reading after 30 minutes of page time: ${whileWaiting.seen.length} reads.`);
      await page.clock.runFor(60_000);
      await whileWaiting.answered();
    }
    await whileWaiting.answered();
    // The first three reads of the page, then at most 8 rounds of three.
    expect(whileWaiting.seen.length).toBeGreaterThan(3);
    expect(whileWaiting.seen.length).toBeLessThanOrEqual(3 + 8 * 3);
    whileWaiting.stop();
    const afterBound = reads(page);
    await page.clock.runFor(10 * 60_000);
    expect(afterBound.paths()).toEqual([]);
  });

  it('knows the purchase has arrived when Buy came before the history had loaded', async () => {
    const { page } = await holderIn();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/v1/credits/transactions*', async (route) => {
      await released;
      // A read the page left for checkout meanwhile is gone: nothing to continue.
      await route.continue().catch(() => undefined);
    });
    await openConsolePage(page, 'Billing');
    await page.locator('[data-pack-id="starter"]').getByRole('button', { name: 'Buy 500 credits for $5.00' }).click();
    release();
    await page.waitForURL(`${stack.stripe!.url}/checkout/**`);
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.waitForURL(`${origin}/console/billing?checkout=success`);
    await page.getByTestId('checkout-outcome').getByText('Your purchase has arrived').waitFor();
  });
});

describe('a 429 shows as an error, never as empty data', () => {
  const TOO_MANY = {
    status: 429,
    headers: { 'Content-Type': 'application/json', 'Retry-After': '30', 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '0' },
    body: JSON.stringify({ data: null, error: { message: 'Rate limit exceeded: 60 requests per minute.', code: 'rate_limit_exceeded' } }),
  };
  /**
   * Each list page (its address), the request it lists from, and what it shows as a list or as
   * "nothing yet". Each is opened by its address: a page load starts with nothing read, where a
   * click would find the ledger's first page already read by the Overview's chart (kept 30 s).
   */
  const PAGES: ReadonlyArray<{ label: string; address: string; path: RegExp; list: (page: Page) => Locator }> = [
    { label: 'API keys', address: 'keys', path: /^\/keys$/, list: (page) => page.getByTestId('keys').or(page.getByText('No keys yet')) },
    { label: 'Generations', address: 'generations', path: /^\/videos$/, list: (page) => page.getByTestId('gallery').or(page.getByTestId('gallery-empty')) },
    { label: 'Webhooks', address: 'webhooks', path: /^\/webhooks$/, list: (page) => page.getByText('No endpoints yet') },
    {
      label: 'Usage',
      address: 'usage',
      path: /^\/credits\/transactions$/,
      list: (page) => page.getByTestId('transactions').or(page.getByText('No transactions yet')),
    },
    {
      label: 'Billing',
      address: 'billing',
      path: /^\/credits\/transactions$/,
      list: (page) => page.getByTestId('billing-history').or(page.getByText('Nothing bought or granted yet')),
    },
  ];

  it('on every list page, at once, with the wait the API asked for', async () => {
    const { page } = await holderIn();
    for (const { label, address, path, list } of PAGES) {
      const refused = watchRequests(page, 'GET', path);
      await page.route(
        (url) => url.pathname.startsWith('/api/v1/') && path.test(url.pathname.slice('/api/v1'.length)),
        (route) => route.fulfill(TOO_MANY),
      );
      await page.goto(`${origin}/console/${address}`);
      await page.getByRole('heading', { level: 1, name: label }).waitFor();
      const alert = page.getByRole('alert').filter({ hasText: 'Too many requests' });
      await alert.waitFor();
      await expect(alert.innerText()).resolves.toContain('30 seconds');
      expect({ label, listed: await list(page).count() }).toEqual({ label, listed: 0 });
      // Shown at once: the console does not wait out Retry-After and ask again behind a blank page.
      expect({ label, requests: refused.seen.length }).toEqual({ label, requests: 1 });
      refused.stop();
      await page.unrouteAll();
    }
  });

  it("on the Overview's spend chart: the error alone, not Loading beside it", async () => {
    const { page } = await holderIn();
    await page.route(
      (url) => url.pathname === '/api/v1/credits/transactions',
      (route) => route.fulfill(TOO_MANY),
    );
    await page.reload();
    const chart = page.locator('section', { has: page.getByRole('heading', { name: /^Spend per day/ }) });
    await chart.getByRole('alert').filter({ hasText: 'Too many requests' }).waitFor();
    await expect(chart.getByText('Loading…').count()).resolves.toBe(0);
    await expect(chart.getByRole('img', { name: /Credits spent per day/ }).count()).resolves.toBe(0);
  });
});

describe('375 px', () => {
  /** How far the document scrolls sideways (0 when it fits). */
  const overflow = (page: Page) => page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');

  it('every page fits: no sideways scrolling', async () => {
    const { page, api, holder } = await holderIn({ width: 375, height: 800 });
    // An invitation to this holder from another account's owner, for the Invitations page.
    const inviter = await signedInHolder(stack);
    const invited = await call(stack.baseUrl, '/account/members', {
      method: 'POST',
      headers: { Authorization: `Bearer ${inviter.accessToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: holder.email, role: 'developer' }),
    });
    expect(invited.status).toBe(200);
    // Something on every page: a key, a webhook endpoint with a delivery, a finished video.
    const key = await api<{ api_key: string }>('test', '/keys', { method: 'POST', body: { name: 'a key with a rather long name for a narrow screen', mode: 'test', scopes: ['generate', 'read', 'webhooks'] } });
    const webhook = await api<{ webhook_id: string }>('test', '/webhooks', { method: 'POST', body: { url: 'http://127.0.0.1:9/a/rather/long/path/for/a/narrow/screen', events: ['video.completed'] } });
    await api('test', `/webhooks/${webhook.webhook_id}/test`, { method: 'POST' });
    const video = await api<{ video_id: string }>('test', '/generate', { method: 'POST', body: { prompt: 'a narrow screen, a long prompt that wraps over several lines of the card', duration: 3 } });
    await waitForFinal(stack, key.api_key, `/videos/${video.video_id}`);
    await testMode(page);

    const wide: Array<{ page: string; overflow: number }> = [];
    const check = async (name: string, ready: () => Promise<unknown>) => {
      await ready();
      const by = await overflow(page);
      if (by > 0) wide.push({ page: name, overflow: by });
    };
    const visit = async (path: string, name: string, ready: () => Promise<unknown>) => {
      await page.goto(`${origin}/console${path}`);
      await check(name, ready);
    };
    await visit('/', 'overview', () => page.getByRole('img', { name: /Credits spent per day/ }).waitFor());
    await visit('/keys', 'API keys', () => page.locator('tr', { hasText: 'a key with a rather long name' }).waitFor());
    await visit('/generations', 'generations', () => page.locator(`[data-task-id="${video.video_id}"]`).waitFor());
    await visit(`/generations?id=${video.video_id}`, 'a generation', () => page.getByTestId('result-video').waitFor());
    await visit('/playground', 'playground (video)', () => page.getByLabel('prompt (required)').waitFor());
    await page.getByRole('radio', { name: 'Image' }).check();
    await check('playground (image)', () => page.getByLabel('aspect ratio').waitFor());
    await visit('/webhooks', 'webhooks', () => page.getByRole('button', { name: 'Deliveries' }).click());
    await check('webhooks with deliveries', () => page.getByTestId('deliveries').waitFor());
    await visit('/usage', 'usage', () => page.getByTestId('transactions').locator('tbody tr').first().waitFor());
    await visit('/billing', 'billing (test)', () => page.getByTestId('billing-history').waitFor());
    await visit('/settings', 'settings', () => page.getByRole('radio', { name: 'for good' }).waitFor());
    await visit('/members', 'members', () => page.getByTestId('members').locator('tbody tr').first().waitFor());
    await visit('/audit-log', 'audit log', () => page.getByTestId('audit-events').locator('tbody tr').first().waitFor());
    await visit('/invitations', 'invitations', () => page.getByTestId('my-invitations').locator('tbody tr').first().waitFor());
    await visit('/nowhere', 'page not found', () => page.getByRole('heading', { name: 'Page not found' }).waitFor());
    await page.getByRole('switch', { name: 'Test mode' }).uncheck();
    await visit('/billing', 'billing (live)', () => page.getByTestId('packs').waitFor());

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await check('sign in', async () => undefined);
    for (const [path, heading] of [['/sign-up', 'Create an account'], ['/verify', 'Verify your email'], ['/forgot-password', 'Reset your password']] as const) {
      await visit(path, heading, () => page.getByRole('heading', { name: heading }).waitFor());
    }
    expect(wide).toEqual([]);
  });
});

describe('focus, titles and feedback', () => {
  /** What has focus: its tag, and the nearest test id, link or heading text around it. */
  // Run in the page (strings: the tests' TypeScript has no DOM types).
  const focused = (page: Page) =>
    page.evaluate<string>(`(() => {
      const element = document.activeElement;
      if (!element || element === document.body) return 'body';
      return element.closest('[data-testid]')?.getAttribute('data-testid') ?? element.textContent.trim();
    })()`);
  const focusedProperty = (page: Page, name: 'name' | 'id' | 'tagName') => page.evaluate<string | undefined>(`document.activeElement?.${name}`);
  const inView = (page: Page, testId: string) =>
    page.evaluate<boolean>(`(() => {
      const box = document.querySelector('[data-testid="${testId}"]').getBoundingClientRect();
      return box.top >= 0 && box.top < window.innerHeight;
    })()`);

  it('at 375 px the new key is focused and scrolled into view; storing it leaves focus on the form', async () => {
    const { page } = await holderIn({ width: 375, height: 700 });
    await openConsolePage(page, 'API keys');
    await page.getByLabel('Name', { exact: true }).fill('focused key');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByTestId('new-key-value').waitFor();
    await expect(focused(page)).resolves.toBe('new-key');
    await expect(inView(page, 'new-key')).resolves.toBe(true);
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await expect(focusedProperty(page, 'name')).resolves.toBe('key-name');

    await openConsolePage(page, 'Webhooks');
    await page.getByLabel('URL').fill('http://127.0.0.1:9/focused');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByTestId('webhook-secret').waitFor();
    await expect(focused(page)).resolves.toBe('webhook-secret');
    await expect(inView(page, 'webhook-secret')).resolves.toBe(true);
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await expect(focusedProperty(page, 'name')).resolves.toBe('url');
  });

  it('opening a generation focuses its heading; going back focuses its card again', async () => {
    const { page, api } = await holderIn();
    await testMode(page);
    const video = await api<{ video_id: string }>('test', '/generate', { method: 'POST', body: { prompt: 'a card to open', duration: 3 } });
    await openConsolePage(page, 'Generations');
    const tile = page.locator(`[data-task-id="${video.video_id}"]`).getByRole('button');
    await tile.click();
    await page.getByRole('heading', { level: 1, name: `Video ${video.video_id}` }).waitFor();
    await expect(focusedProperty(page, 'tagName')).resolves.toBe('H1');
    await page.getByRole('button', { name: '← Back to the gallery' }).click();
    await tile.waitFor();
    await page.waitForFunction(`document.activeElement?.closest('[data-task-id="${video.video_id}"]') != null`);
  });

  it('names each page in the title, and skips to the content from the first Tab', async () => {
    const { page } = await holderIn();
    await expect(page.title()).resolves.toBe('Overview · vidgen console');
    for (const label of ['API keys', 'Generations', 'Playground', 'Webhooks', 'Usage', 'Billing', 'Settings', 'Members', 'Audit log']) {
      await openConsolePage(page, label);
      await expect(page.title()).resolves.toBe(`${label} · vidgen console`);
    }
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    await page.keyboard.press('Tab');
    await expect(focused(page)).resolves.toBe('Skip to content');
    await page.keyboard.press('Enter');
    await expect(focusedProperty(page, 'id')).resolves.toBe('main');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await expect(page.title()).resolves.toBe('Sign in · vidgen console');
  });

  it('says "Loading" while a list loads, not an empty table', async () => {
    const { page } = await holderIn();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/v1/keys', async (route) => {
      await released;
      await route.continue();
    });
    await openConsolePage(page, 'API keys');
    await page.getByText('Loading…').waitFor();
    await expect(page.getByTestId('keys').count()).resolves.toBe(0);
    release();
    await page.getByText('No keys yet').waitFor();
  });
});

describe("the holder's rate limit (60 requests a minute for the session)", () => {
  /** A brisk person: a few seconds on each page (page time: the page's clock shows this, whatever the machine's speed). */
  const PAGE_SECONDS = 3;
  /**
   * What each visit may send: a page reads what it shows once, and nothing another page read
   * moments ago (the console keeps what it read for 30 s). GET /account is the same in both
   * modes; the ledger's pages of 50 serve the Overview's chart (six at most), Usage and Billing's
   * history alike. The whole walk: 17 requests, under a third of the minute's 60.
   */
  const BUDGET: Readonly<Record<string, number>> = {
    'Overview (live)': 3, // the holder's accounts (the switcher, the role), the account, the live ledger's one page
    'Overview (test)': 6, // the chart's six pages of the test ledger, not the account again
    'API keys': 2, // the keys, and the members whose emails say who made each
    Generations: 1, // read on every opening: tasks started elsewhere show at once
    Playground: 2, // the catalogue, the price of what was typed
    Webhooks: 1,
    Usage: 1, // the usage report (GET /usage); the transactions' first page is the chart's
    Billing: 2, // GET /billing and the seventh page, which the chart did not need
  };

  it('reads what each page shows once on a brisk walk through every page, and meets no 429', async () => {
    const { page, api } = await holderIn({ clock: true });
    // Something on every page: a key, a webhook endpoint, a finished video, seven pages of test ledger.
    const key = await api<{ api_key: string }>('test', '/keys', { method: 'POST', body: { name: 'walk key', mode: 'test' } });
    await api('test', '/webhooks', { method: 'POST', body: { url: 'http://127.0.0.1:9/walk', events: ['image.failed'] } });
    const started = await call<{ video_id: string }>(stack.baseUrl, '/generate', {
      method: 'POST',
      key: key.api_key,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ prompt: 'a brisk walk', duration: 3 }),
    });
    const videoId = started.body.data!.video_id;
    await waitForFinal(stack, key.api_key, `/videos/${videoId}`);
    const { account_id: accountId } = await api<{ account_id: string }>('test', '/account');
    await busyLedger(accountId, 'test', 320);

    const walk = recordApiRequests(page);
    let pageTime = Date.now();
    const visit = async (label: string, go: () => Promise<unknown>, settled: () => Promise<unknown>) => {
      await page.clock.setFixedTime((pageTime += PAGE_SECONDS * 1000));
      walk.visit(label);
      await go();
      await settled();
      await walk.answered();
    };
    // Signed in a moment ago: the console from the start, nothing read yet.
    await visit('Overview (live)', () => page.reload(), () => page.getByRole('img', { name: /Credits spent per day/ }).waitFor());
    const testChart = page.locator('section', { has: page.getByRole('heading', { name: 'Spend per day, last 30 days (test)' }) });
    await visit('Overview (test)', () => testMode(page), () => testChart.getByRole('img', { name: /Credits spent per day/ }).waitFor());
    await visit('API keys', () => openConsolePage(page, 'API keys'), () => page.locator('tr', { hasText: 'walk key' }).waitFor());
    await visit('Generations', () => openConsolePage(page, 'Generations'), () => page.locator(`[data-task-id="${videoId}"][data-status="completed"]`).waitFor());
    await visit(
      'Playground',
      () => openConsolePage(page, 'Playground'),
      async () => {
        await page.getByLabel('prompt (required)').fill('a brisk walk');
        await page.getByTestId('quote').getByText(/^Costs/).waitFor();
      },
    );
    await visit('Webhooks', () => openConsolePage(page, 'Webhooks'), () => page.locator('[data-webhook-id]').waitFor());
    await visit('Usage', () => openConsolePage(page, 'Usage'), () => Promise.all([page.getByText(/^Page 1 of 7 /).waitFor(), page.getByTestId('usage-totals').waitFor()]));
    await visit('Billing', () => openConsolePage(page, 'Billing'), () => Promise.all([page.getByTestId('billing-history').waitFor(), page.getByTestId('test-subscription').waitFor()]));
    walk.stop();

    const answers = await walk.answered();
    const refused = answers.flatMap((answer, index) => (answer && answer.status() < 400 ? [] : [`${walk.seen[index]!.method} ${walk.seen[index]!.target} ${answer?.status() ?? 'no answer'}`]));
    const perVisit = walk.perVisit();
    const overBudget = Object.entries(BUDGET).flatMap(([label, most]) => ((perVisit[label] ?? 0) > most ? [{ visit: label, requests: walk.byPath(label), most }] : []));
    expect({ refused, overBudget, repeated: walk.repeatedReads() }).toEqual({ refused: [], overBudget: [], repeated: [] });
    expect(walk.seen.length).toBeLessThanOrEqual(Object.values(BUDGET).reduce((sum, most) => sum + most, 0));
  });

  it('reads a pending delivery less and less often while it shows: at most 15 reads in its first minute, 7 in the next', async () => {
    const { page, api } = await holderIn({ clock: true });
    // A real event to an endpoint that never answers: pending for many minutes (retries after 2, 10, 30, 120 s...).
    const key = await api<{ api_key: string }>('test', '/keys', { method: 'POST', body: { name: 'watcher', mode: 'test' } });
    const webhook = await api<{ webhook_id: string }>('test', '/webhooks', { method: 'POST', body: { url: 'http://127.0.0.1:9/never-answers', events: ['video.completed'] } });
    await api('test', '/generate', { method: 'POST', body: { prompt: 'an event that never lands', duration: 3 } });
    type Deliveries = { deliveries: Array<{ status: string; attempts: number }> };
    await until(
      async () => (await call<Deliveries>(stack.baseUrl, `/webhooks/${webhook.webhook_id}/deliveries`, { key: key.api_key })).body.data,
      (data) => data?.deliveries.some((delivery) => delivery.status === 'pending' && delivery.attempts > 0) ?? false,
      'a pending delivery',
    );
    await testMode(page);
    await openConsolePage(page, 'Webhooks');
    const reads = watchRequests(page, 'GET', /^\/webhooks\/[^/]+\/deliveries$/);
    await page.getByRole('button', { name: 'Deliveries' }).click();
    await page.getByTestId('deliveries').getByText('pending').waitFor();
    await reads.answered();

    // Page time a second at a time, each read answered before the next second: two minutes of watching.
    const pageNow = await page.evaluate<number>('Date.now()');
    await page.clock.pauseAt(pageNow + 1_000);
    const perMinute: number[] = [];
    for (let minute = 0; minute < 2; minute += 1) {
      const before = reads.seen.length;
      for (let second = 0; second < 60; second += 1) {
        await page.clock.runFor(1_000);
        await reads.answered();
      }
      perMinute.push(reads.seen.length - before);
    }
    await page.clock.resume();
    await page.getByTestId('deliveries').getByText('pending').waitFor();
    expect({ perMinute, first: perMinute[0]! <= 15, next: perMinute[1]! <= 7 }).toEqual({ perMinute, first: true, next: true });
  });

  it('reads three things a round after checkout, however long the ledger', async () => {
    const { page, api } = await holderIn({ clock: true });
    const { account_id: accountId } = await api<{ account_id: string }>('live', '/account');
    await busyLedger(accountId, 'live', 320);
    // Granted behind the console's back: what it read at sign-in is kept 30 s, a reload reads anew.
    await page.reload();
    await openConsolePage(page, 'Billing');
    await page.getByTestId('billing-history').waitFor();
    await page.locator('[data-pack-id="starter"]').getByRole('button', { name: 'Buy 500 credits for $5.00' }).click();
    await page.waitForURL(`${stack.stripe!.url}/checkout/**`);
    // Back without paying: the purchase never shows, so the page reads again its eight times.
    const reads = watchRequests(page, 'GET', /^\/(account|billing|credits\/transactions)$/);
    await page.goto(`${origin}/console/billing?checkout=success`);
    await page.getByTestId('billing-history').waitFor();
    await reads.answered();
    const first = reads.seen.length;
    const gaveUp = page.getByTestId('checkout-outcome').getByText('not confirmed the payment yet');
    for (let minutes = 0; (await gaveUp.count()) === 0; minutes += 1) {
      if (minutes === 30) throw new Error(`Still reading after 30 minutes of page time: ${reads.seen.length} reads.`);
      await page.clock.runFor(60_000);
      await reads.answered();
    }
    const rounds = reads.seen.slice(first).map((request) => {
      const url = new URL(request.url());
      return `${url.pathname.slice('/api/v1'.length)}${url.searchParams.has('page') ? `?page=${url.searchParams.get('page')}` : ''}`;
    });
    // Eight rounds: the balance, the billing, and the ledger's first page (where a new purchase shows).
    expect(rounds.sort()).toEqual([...Array(8).fill('/account'), ...Array(8).fill('/billing'), ...Array(8).fill('/credits/transactions?page=1')].sort());
  });
});
