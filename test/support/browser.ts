import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
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
