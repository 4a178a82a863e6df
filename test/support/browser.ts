import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { findChromium } from '#bin/prerequisites/chromium';
import { chromiumProblem, describeMissing } from '#bin/prerequisites/checks';
import { REPO_ROOT } from './run-script';

/**
 * What every browser test shares: the Chromium to drive (found as `npm test`'s prerequisite
 * check finds it), the flags it needs here, and where screenshots go.
 */
export function chromiumExecutable(env: NodeJS.ProcessEnv = process.env): string {
  const lookup = findChromium(env);
  if (!lookup.found) throw new Error(describeMissing(chromiumProblem(env)!));
  return lookup.path;
}

/** Headless, and quiet: without these it floods a closed network with update and sync requests. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
] as const;

/** Where test screenshots go: a git-ignored folder, unless UPDATE_SCREENSHOTS=1 asks for the tracked copy in docs/. */
export const SCREENSHOT_DIR = path.join(REPO_ROOT, 'out', 'screenshots');

export function screenshotPath(name: string, env: NodeJS.ProcessEnv = process.env): string {
  if (env.UPDATE_SCREENSHOTS === '1') return path.join(REPO_ROOT, 'docs', name);
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return path.join(SCREENSHOT_DIR, name);
}

/** Opens a page of the signed-in console by its link in the main navigation and waits for its heading. */
export async function openConsolePage(page: Page, label: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label }).click();
  await page.getByRole('heading', { level: 1, name: label }).waitFor();
}

/** Signs in at the console's sign-in page (`origin` serves /console/) and waits for the overview. */
export async function signInToConsole(page: Page, origin: string, email: string, password: string): Promise<void> {
  await page.goto(`${origin}/console/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
}

/** One request a page sent to the API. */
export interface ApiRequest {
  /** When it was sent (this machine's clock, as the API's rate limit windows are). */
  at: number;
  method: string;
  /** Under /api/v1, without the query: `/credits/transactions`. */
  path: string;
  /** Under /api/v1, with the query: what tells a repeated read (with `mode`). */
  target: string;
  /** The `Vidgen-Mode` it was sent in (`live` when none). */
  mode: string;
  /** The page visit it belongs to (the last `visit` label), or '' before the first. */
  visit: string;
  request: Request;
}

/**
 * Every request `page` sends to the API (under /api/v1/), for request budgets: the holder's
 * session is rate limited like a key (60 a minute, fixed windows aligned to the minute), so the
 * console's requests are counted per page visit and per minute. `visit(label)` starts a visit.
 */
export function recordApiRequests(page: Page) {
  const seen: ApiRequest[] = [];
  let visit = '';
  const listener = (request: Request) => {
    const url = new URL(request.url());
    if (!url.pathname.startsWith('/api/v1/')) return;
    const path = url.pathname.slice('/api/v1'.length);
    const mode = request.headers()['vidgen-mode'] ?? 'live';
    seen.push({ at: Date.now(), method: request.method(), path, target: `${path}${url.search}`, mode, visit, request });
  };
  page.on('request', listener);
  const countBy = (key: (request: ApiRequest) => string, among: readonly ApiRequest[] = seen) => {
    const counts: Record<string, number> = {};
    for (const request of among) counts[key(request)] = (counts[key(request)] ?? 0) + 1;
    return counts;
  };
  return {
    seen,
    visit: (label: string) => {
      visit = label;
    },
    /** Resolves once every request seen so far has its answer (or has failed). */
    answered: () => Promise.all(seen.map(({ request }) => request.response().catch(() => null))),
    /** Requests per visit, in the order visited. */
    perVisit: () => countBy((request) => request.visit),
    /** Requests per aligned minute (`HH:MM` UTC), as the API counts them. */
    perMinute: () => countBy((request) => new Date(request.at - (request.at % 60_000)).toISOString().slice(11, 16)),
    /** `METHOD /path` counts, of one visit or of all. */
    byPath: (visitLabel?: string) => countBy((request) => `${request.method} ${request.path}`, visitLabel === undefined ? seen : seen.filter((request) => request.visit === visitLabel)),
    /** GETs of the same path and query in the same mode sent more than once, with how often. */
    repeatedReads: () =>
      Object.entries(countBy((request) => `${request.mode} ${request.target}`, seen.filter((request) => request.method === 'GET'))).filter(([, count]) => count > 1),
    stop: () => page.off('request', listener),
  };
}

/** A browser context of a test, with what went wrong in its pages. */
export interface WatchedTab {
  context: BrowserContext;
  page: Page;
  /** Console errors, page errors, failed requests and 4xx/5xx answers so far (of every page of the context). */
  problems: string[];
}

/** A fresh browser context (no storage) with one page, watched for errors. */
export async function watchedTab(browser: Browser): Promise<WatchedTab> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const problems: string[] = [];
  const watch = (page: Page) => {
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`${message.text()} (${message.location().url})`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.request().method()} ${response.url()} ${response.status()}`);
    });
    page.on('requestfailed', (request) => {
      if (request.failure()?.errorText !== 'net::ERR_ABORTED') problems.push(`${request.url()} ${request.failure()?.errorText ?? ''}`);
    });
  };
  context.on('page', watch);
  const page = await context.newPage();
  return { context, page, problems };
}

/**
 * Takes out of `problems` (a WatchedTab's) the refusals a test caused on purpose: every answer of
 * `status` from a URL `url` matches, and the console line Chromium logs for each. Answers how many
 * answers it took; the lines left are the unexpected ones.
 */
export function takeRefusals(problems: string[], url: RegExp, status: number): number {
  const answer = new RegExp(`^[A-Z]+ (\\S+) ${status}$`);
  const logged = new RegExp(`status of ${status} .*\\((\\S+)\\)$`);
  let answers = 0;
  const kept = problems.filter((line) => {
    const asAnswer = answer.exec(line);
    if (asAnswer && url.test(asAnswer[1]!)) {
      answers += 1;
      return false;
    }
    const asLog = logged.exec(line);
    return !(asLog && url.test(asLog[1]!));
  });
  problems.splice(0, problems.length, ...kept);
  return answers;
}
