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
