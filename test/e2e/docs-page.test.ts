import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { LocalStack } from '#bin/local-stack/stack';
import { ROUTES } from '#http/routes/index';
import { LOCAL_SERVER_URL, documentPath } from '#openapi/document';
import { CHROMIUM_ARGS, chromiumExecutable, screenshotPath } from '#test-support/browser';
import { startTestApi } from '#test-support/local-api';

/**
 * The API reference page in a real headless Chromium (found by test/support/browser.ts, driven
 * by playwright-core; `npm test` checks it is installed first). The browser reaches the test's local API through a
 * proxy setting, under the local stack's usual address (http://127.0.0.1:3000), so the page
 * and its screenshot show what `npm start` serves. Every request to any other origin is
 * refused and counted: the page must work offline. The screenshot goes to out/screenshots/
 * (git-ignored); UPDATE_SCREENSHOTS=1 writes README's docs/api-reference.png instead.
 */
jest.setTimeout(90_000);

const SCREENSHOT = screenshotPath('api-reference.png');
const ORIGIN = new URL(LOCAL_SERVER_URL).origin;

let stack: LocalStack;
let profile: string;
let context: BrowserContext;
let page: Page;
const consoleErrors: string[] = [];
const outsideRequests: string[] = [];
const failedRequests: string[] = [];

beforeAll(async () => {
  const executablePath = chromiumExecutable();
  // The stack's configured base URL is the address the browser uses (it never trusts Host).
  stack = await startTestApi({ API_BASE_URL: LOCAL_SERVER_URL });
  profile = mkdtempSync(path.join(os.tmpdir(), 'vidgen-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    viewport: { width: 1280, height: 900 },
    deviceScaleFactor: 1,
    args: [
      ...CHROMIUM_ARGS,
      // Everything goes to the test's API server, loopback addresses included.
      `--proxy-server=http://127.0.0.1:${stack.apiPort}`,
      '--proxy-bypass-list=<-loopback>',
    ],
  });
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(`${ORIGIN}/`) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
    outsideRequests.push(url);
    return route.abort('blockedbyclient');
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => failedRequests.push(`${request.url()} ${request.failure()?.errorText ?? ''}`));
});

afterAll(async () => {
  await context?.close();
  await stack?.stop();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

describe('GET /api/v1/docs in Chromium', () => {
  const paths = [...new Set(ROUTES.map((route) => documentPath(route.path)))];

  it('renders every endpoint, offline, without console errors', async () => {
    const response = await page.goto(`${LOCAL_SERVER_URL}/docs`);
    expect(response?.status()).toBe(200);
    await page.waitForSelector('.api-content', { timeout: 30_000 });
    // (Runs in the page; this project's TypeScript has no DOM types, hence the cast.)
    await page.waitForFunction(
      (expected) => {
        const text = (globalThis as unknown as { document: { body: { innerText: string } } }).document.body.innerText;
        return expected.every((p) => text.includes(p));
      },
      paths,
      { timeout: 30_000 },
    );
    const text = await page.innerText('body');
    for (const p of paths) expect([p, text.includes(p)]).toEqual([p, true]);
    expect(text).toContain('Video & Image Generation API');
    expect(text).toContain('rate_limit_exceeded');

    expect(consoleErrors).toEqual([]);
    expect(outsideRequests).toEqual([]);
    expect(failedRequests).toEqual([]);
  });

  it('shows an operation with its curl example, and saves the screenshot', async () => {
    await page.goto(`${LOCAL_SERVER_URL}/docs#tag/Videos/operation/generateVideo`);
    await page.waitForSelector('.api-content');
    await page.waitForFunction("document.body.innerText.includes('Request samples')");
    // Let Redoc finish scrolling to the anchor and settle.
    await page.waitForTimeout(1_000);
    const operation = page.locator('[data-section-id="tag/Videos/operation/generateVideo"]');
    await expect(operation.innerText()).resolves.toContain(`curl -s -X POST "${LOCAL_SERVER_URL}/generate"`);
    await page.screenshot({ path: SCREENSHOT, type: 'png' });
    const size = statSync(SCREENSHOT).size;
    expect(size).toBeGreaterThan(20_000);
    expect(size).toBeLessThan(600_000);

    expect(consoleErrors).toEqual([]);
    expect(outsideRequests).toEqual([]);
    expect(failedRequests).toEqual([]);
  });
});
