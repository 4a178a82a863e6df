import { readFile } from 'node:fs/promises';
import { chromium, type Browser } from 'playwright-core';
import type { LocalStack } from '#bin/local-stack/stack';
import { DynamoTaskDurations } from '#adapters/dynamodb/task-durations';
import { grantCredits } from '#domain/accounts/account-admin';
import { CHROMIUM_ARGS, chromiumExecutable, openConsolePage, signInToConsole } from '#test-support/browser';
import { GOOD_PASSWORD, signedInHolder } from '#test-support/identity';
import { startTestApi } from '#test-support/local-api';

/**
 * Issue 34 in the console, in a real headless Chromium against the local stack: the gallery
 * filtered by end user (`?end_user=`), and a generation's detail with its end user, its metadata
 * and, while it waits, its queue position and estimate. The simulated provider runs one job at a
 * time for long enough (SIM_CONCURRENCY=1, 60 s) that later jobs wait behind the first.
 */
jest.setTimeout(180_000);

const DELAY_SECONDS = 60;
let stack: LocalStack;
let browser: Browser;
let origin: string;

beforeAll(async () => {
  stack = await startTestApi({ SIM_DELAY_SECONDS: String(DELAY_SECONDS), PROVIDER: 'simulated', SIM_CONCURRENCY: '1', AUTH_CACHE_TTL_SECONDS: '0' }, { console: true });
  origin = `http://127.0.0.1:${stack.apiPort}`;
  browser = await chromium.launch({ executablePath: chromiumExecutable(), headless: true, args: [...CHROMIUM_ARGS] });
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  // The next test file of this worker starts its stack without lanes.
  delete process.env.SIM_CONCURRENCY;
});

type Json = Record<string, any>;

it('filters the gallery by end user, and shows a waiting generation with its end user, metadata, place and estimate', async () => {
  // A history for the estimate (three recent runs of the model on this provider), as completions leave it.
  const durations = new DynamoTaskDurations(stack.context.db);
  const now = Date.now();
  for (let i = 0; i < 3; i += 1) {
    await durations.record('simulated', 'vid-1-5-pro', {
      taskId: `vid_seed${i}`,
      createdAt: new Date(now - (i + 1) * 120_000).toISOString(),
      completedAt: new Date(now - (i + 1) * 120_000 + DELAY_SECONDS * 1000).toISOString(),
    });
  }
  const holder = await signedInHolder(stack);
  const api = async (path: string, body?: Json): Promise<Json> => {
    const response = await fetch(`${stack.baseUrl}${path}`, {
      method: body ? 'POST' : 'GET',
      headers: { Authorization: `Bearer ${holder.accessToken}`, ...(body && { 'Content-Type': 'application/json' }) },
      ...(body && { body: JSON.stringify(body) }),
    });
    const answer = (await response.json()) as Json;
    expect([path, response.status]).toEqual([path, 200]);
    return answer.data;
  };
  const accountId = (await api('/account')).account_id as string;
  await grantCredits(stack.context, accountId, 1000, 'console-platform test');
  const start = async (prompt: string, endUser: string, metadata: Record<string, string> = {}) =>
    (await api('/generate', { prompt, duration: 3, resolution: '480p', end_user: endUser, metadata })).video_id as string;
  // One lane: the first runs, the others wait behind it.
  const first = await start('a red fox', 'alice', { order: '1001' });
  await start('a blue whale', 'bob');
  const second = await start('a grey wolf', 'alice', { order: '1002', plan: 'pro' });

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const problems: string[] = [];
  const page = await context.newPage();
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`${response.request().method()} ${response.url()} ${response.status()}`);
  });
  await signInToConsole(page, origin, holder.email, GOOD_PASSWORD);
  await openConsolePage(page, 'Generations');
  await page.locator('[data-task-id]').nth(2).waitFor();
  await expect(page.locator('[data-task-id]').count()).resolves.toBe(3);

  // The filter: typed, then submitted; the address carries it and only alice's tasks show, newest first.
  await page.getByLabel('End user', { exact: true }).fill('alice');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/[?&]end_user=alice(&|$)/);
  await page.getByTestId('gallery-count').filter({ hasText: '2 videos of end user alice' }).waitFor();
  const tiles = await page.locator('[data-task-id]').all();
  await expect(Promise.all(tiles.map((tile) => tile.getAttribute('data-task-id')))).resolves.toEqual([second, first]);

  // The detail of the one waiting: its end user (a link back to the filtered gallery), its metadata, its place and estimate.
  await page.locator(`[data-task-id="${second}"] button`).click();
  await page.getByRole('heading', { level: 1, name: `Video ${second}` }).waitFor();
  await expect(page.getByTestId('task-end-user').innerText()).resolves.toBe('alice');
  const rows = await page.getByTestId('task-metadata').locator('tr').allInnerTexts();
  expect(rows.map((row) => row.split(/\s+/))).toEqual([
    ['order', '1002'],
    ['plan', 'pro'],
  ]);
  const timing = page.getByTestId('task-timing');
  await timing.waitFor();
  await expect(timing.innerText()).resolves.toMatch(/^[12] ahead in the queue · ETA \d\d:\d\d:\d\d \(about \d+ s\)$/);
  const eta = await api(`/videos/${second}`);
  expect(eta).toMatchObject({ status: 'processing', queue_position: expect.any(Number), estimated_completion_at: expect.any(String) });

  // The end user's link: the gallery filtered by that end user again.
  await page.getByTestId('task-end-user').getByRole('link', { name: 'alice' }).click();
  await page.getByTestId('gallery-count').filter({ hasText: '2 videos of end user alice' }).waitFor();
  await expect(page.getByLabel('End user', { exact: true }).inputValue()).resolves.toBe('alice');
  // Cleared: everyone's again.
  await page.getByRole('button', { name: 'All end users' }).click();
  await page.getByTestId('gallery-count').filter({ hasText: /^3 videos in live mode$/ }).waitFor();

  await context.close();
  expect(problems).toEqual([]);
});

it('reports usage by end user for a range: a chart, a table agreeing with GET /usage, and its CSV exported as the API writes it', async () => {
  const holder = await signedInHolder(stack);
  const call = async (path: string, init: { method?: string; body?: Json; accept?: string } = {}): Promise<Response> =>
    fetch(`${stack.baseUrl}${path}`, {
      method: init.method ?? (init.body ? 'POST' : 'GET'),
      headers: { Authorization: `Bearer ${holder.accessToken}`, ...(init.body && { 'Content-Type': 'application/json' }), ...(init.accept && { Accept: init.accept }) },
      ...(init.body && { body: JSON.stringify(init.body) }),
    });
  const api = async (path: string, init: { method?: string; body?: Json } = {}): Promise<Json> => {
    const response = await call(path, init);
    expect([path, response.status]).toEqual([path, 200]);
    return ((await response.json()) as Json).data;
  };
  const accountId = (await api('/account')).account_id as string;
  await grantCredits(stack.context, accountId, 1000, 'console-platform usage');
  const start = async (endUser: string) => (await api('/generate', { body: { prompt: 'a kite', duration: 3, resolution: '480p', end_user: endUser } })).video_id as string;
  const [, canceled] = [await start('alice'), await start('alice'), await start('bob')];
  await api(`/videos/${canceled}/cancel`, { method: 'POST' });
  const report = await api('/usage?group_by=end_user');
  expect(report.rows.map((row: Json) => [row.group, row.tasks, row.credits_refunded > 0])).toEqual([
    ['alice', 2, true],
    ['bob', 1, false],
  ]);

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  await signInToConsole(page, origin, holder.email, GOOD_PASSWORD);
  await openConsolePage(page, 'Usage');
  // By day first (this month so far): the chart, and totals equal to the API's.
  await page.getByRole('img', { name: /Credits spent per day over / }).waitFor();
  const totals = `${report.totals.tasks} tasks · ${report.totals.credits_charged} credits charged · ${report.totals.credits_refunded} refunded · ${report.totals.credits_net} net`;
  await page.getByTestId('usage-totals').filter({ hasText: totals }).waitFor();

  await page.getByLabel('Group by').selectOption('end_user');
  await page.getByTestId('usage-rows').locator('th', { hasText: 'End user' }).waitFor();
  const rows = await page.getByTestId('usage-rows').locator('tbody tr').allInnerTexts();
  expect(rows.map((row) => row.split(/\s+/))).toEqual(report.rows.map((row: Json) => [row.group, ...[row.tasks, row.credits_charged, row.credits_refunded, row.credits_net].map(String)]));
  await expect(page.locator('.group-bar').count()).resolves.toBe(2);

  const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export report CSV' }).click()]);
  expect(file.suggestedFilename()).toMatch(/^vidgen-live-usage-end_user-\d{4}-\d{2}-01-\d{4}-\d{2}-\d{2}\.csv$/);
  const exported = await readFile((await file.path())!, 'utf8');
  const [from, to] = [report.from as string, report.to as string];
  const fromApi = await (await call(`/usage?group_by=end_user&from=${from}&to=${to}`, { accept: 'text/csv' })).text();
  expect(exported).toBe(fromApi);
  await context.close();
});
