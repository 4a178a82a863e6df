import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * package.json's allowScripts: npm 11 (from 11.16) lists the install scripts it does not cover
 * (and still runs them all), npm 12 is to run only the allowed ones. Each package of the lockfile
 * with an install script has a deliberate entry (docs/decisions.md, "Install scripts").
 */
const ROOT = path.resolve(__dirname, '..', '..');
const read = (file: string) => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8'));

describe('allowScripts', () => {
  it('decides for every package in package-lock.json that has an install script', () => {
    const manifest = read('package.json') as { allowScripts?: Record<string, boolean> };
    const lock = read('package-lock.json') as { packages: Record<string, { hasInstallScript?: boolean }> };
    const withScripts = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript)
      .map(([where]) => where.replace(/^.*node_modules\//, ''));
    expect(withScripts.length).toBeGreaterThan(0);
    const undecided = withScripts.filter((name) => typeof manifest.allowScripts?.[name] !== 'boolean');
    expect(undecided).toEqual([]);
  });

  it('runs the scripts the project needs and not the one that only prints an advert', () => {
    const { allowScripts } = read('package.json') as { allowScripts: Record<string, boolean> };
    // ffmpeg's binary arrives without its executable bit; the postinstall sets it (rendered videos need it).
    expect(allowScripts['@ffmpeg-installer/linux-x64']).toBe(true);
    expect(allowScripts.esbuild).toBe(true);
    expect(allowScripts['core-js']).toBe(false);
  });
});
