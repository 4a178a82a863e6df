import { isExecutable, onPath } from './find-executable';

/**
 * The Chromium (or Chrome) the browser tests drive through playwright-core, which downloads
 * no browser of its own: CHROMIUM_PATH when set, else the usual names on PATH (Linux), else
 * the usual application bundles (macOS). Every browser test and `npm test`'s prerequisite
 * check find it here.
 */
export const CHROMIUM_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'] as const;

export const MACOS_BROWSERS = [
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
] as const;

export type ChromiumLookup = { found: true; path: string } | { found: false; reason: string };

export function findChromium(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): ChromiumLookup {
  const given = env.CHROMIUM_PATH?.trim();
  if (given) {
    return isExecutable(given)
      ? { found: true, path: given }
      : { found: false, reason: `CHROMIUM_PATH is ${given}, which is not an executable file` };
  }
  const candidate = onPath(CHROMIUM_NAMES, env) ?? (platform === 'darwin' ? MACOS_BROWSERS.find(isExecutable) : undefined);
  return candidate
    ? { found: true, path: candidate }
    : { found: false, reason: `no ${CHROMIUM_NAMES.join(', ')} on PATH${platform === 'darwin' ? ' and no Chromium.app or Google Chrome.app in /Applications' : ''}` };
}
