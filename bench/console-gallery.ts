import { chromium, type Browser } from 'playwright-core';
import type { LocalStack } from '#bin/local-stack/stack';
import { createApiKey, grantCredits, setAccess } from '#domain/accounts/account-admin';
import { CHROMIUM_ARGS, chromiumExecutable } from '#test-support/browser';
import { GOOD_PASSWORD, signedInHolder } from '#test-support/identity';

/**
 * The console's gallery in Debian's Chromium: the time from a navigation to the Generations page
 * until its first page of cards shows, for a holder with `tasks` image tasks (still processing:
 * the gallery shows tasks whatever their status). A load includes the session's refresh and the
 * list request, as a holder's reload does.
 */
/** The gallery's page size (console/src/pages/Generations.tsx). */
const PAGE_SIZE = 48;
const IMAGE_CREDITS = 5;

/** The page's DOM as the timing reads it (this Node project loads no DOM types; the console's CSP forbids a string to evaluate). */
type InPage = { document: { querySelectorAll(selector: string): { length: number } } };

export interface GalleryTiming {
  tasks: number;
  cards: number;
  /** Milliseconds from navigation start to the cards shown, one per load. */
  loads: number[];
}

/** A holder signed up as the console's users are, with `tasks` live image tasks started through the API. */
async function holderWithImages(stack: LocalStack, tasks: number): Promise<string> {
  const holder = await signedInHolder(stack);
  // The first authenticated read opens the holder's account.
  const account = await fetch(`${stack.baseUrl}/account`, { headers: { Authorization: `Bearer ${holder.accessToken}` } });
  const accountId = ((await account.json()) as { data: { account_id: string } }).data.account_id;
  await setAccess(stack.context, accountId, { paidAccess: true, subscriptionStatus: 'active' });
  await grantCredits(stack.context, accountId, tasks * IMAGE_CREDITS, 'gallery bench');
  const { apiKey } = await createApiKey(stack.context, accountId, { rateLimit: 100_000 });
  for (let i = 0; i < tasks; i += 1) {
    const started = await fetch(`${stack.baseUrl}/generate-image`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ prompt: `gallery bench image ${i + 1}: a lighthouse at dusk` }),
    });
    if (started.status !== 200) throw new Error(`POST /generate-image answered ${started.status}: ${await started.text()}`);
  }
  return holder.email;
}

/** Signs `email` in through the console's form, then loads the image gallery `loads` times (after one warm-up). */
async function timeGallery(browser: Browser, origin: string, email: string, tasks: number, loads: number): Promise<GalleryTiming> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    await page.goto(`${origin}/console/`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(GOOD_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    const cards = Math.min(tasks, PAGE_SIZE);
    const times: number[] = [];
    for (let load = 0; load <= loads; load += 1) {
      await page.goto(`${origin}/console/generations?kind=image`);
      // The page's own clock starts at navigation start; read it on the first frame with every card.
      const shown = await page.waitForFunction(
        (count) => (globalThis as unknown as InPage).document.querySelectorAll('[data-testid="gallery"] > li').length >= count && performance.now(),
        cards,
        { timeout: 30_000 },
      );
      if (load > 0) times.push((await shown.jsonValue()) as number);
    }
    return { tasks, cards, loads: times };
  } finally {
    await context.close();
  }
}

/** The gallery's first render with each history length, `loads` loads each. */
export async function galleryTimings(stack: LocalStack, histories: number[], loads = 5): Promise<GalleryTiming[]> {
  const origin = new URL(stack.baseUrl).origin;
  const holders = [];
  for (const tasks of histories) holders.push({ tasks, email: await holderWithImages(stack, tasks) });
  const browser = await chromium.launch({ executablePath: chromiumExecutable(), headless: true, args: [...CHROMIUM_ARGS] });
  try {
    const timings: GalleryTiming[] = [];
    for (const holder of holders) timings.push(await timeGallery(browser, origin, holder.email, holder.tasks, loads));
    return timings;
  } finally {
    await browser.close();
  }
}
