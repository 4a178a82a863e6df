import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '#bin/local-stack/wait-for-port';
import { README_PREPARED, README_SKIPPED, readmeCommands, readmeScript } from '#bin/readme/walkthrough';
import { interrupt, start } from '#test-support/npm-start';
import { REPO_ROOT, runScript } from '#test-support/run-script';

/**
 * README.md's walk-through, run top to bottom with no edit (`npm run -s check:readme`) against
 * a new `npm start` (default settings, so the simulated provider's 10 s) on other ports than the
 * defaults: the CLIs it calls must find the stack by themselves, every command must succeed and
 * print what the README shows under it. check:readme first waits for a new minute.
 */
jest.setTimeout(600_000);

describe('the README walk-through', () => {
  it('fills the banner values in and leaves out only what a script cannot run', () => {
    const { script } = readmeScript(readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8'), { KEY: 'vg_live_x', ACCOUNT: 'acc_x', BASE: 'http://b/api/v1' });
    expect(script).toMatch(/^KEY='vg_live_x'$/m);
    expect(script).toMatch(/^ACCOUNT='acc_x'$/m);
    expect(script).toMatch(/^BASE='http:\/\/b\/api\/v1'$/m);
    const skipped = script.split('\n').filter((line) => line.startsWith('# (not run by check:readme)'));
    const skippable = readmeCommands(readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8')).filter((command) => command.skipped);
    expect(skipped).toEqual(skippable.flatMap((command) => command.lines.map((line) => `# (not run by check:readme) ${line}`)));
    expect(skippable.map((command) => README_SKIPPED.filter((pattern) => pattern.test(command.lines[0]!)).length)).not.toContain(0);
    expect(skippable.length).toBeLessThanOrEqual(4);
    // The rate-limit demo starts with room left in its minute (the README still has it).
    const lines = script.split('\n');
    const demo = lines.findIndex((line) => /^for i in \$\(seq 6\).*\$SLOW/.test(line));
    expect(demo).toBeGreaterThan(0);
    expect(lines[demo - 1]).toBe(README_PREPARED[0]!.run);
  });

  it('runs on PORT/DYNAMODB_PORT/S3_PORT other than the defaults, and every command prints the output the README shows', async () => {
    const env = {
      PORT: String(await freePort()),
      DYNAMODB_PORT: String(await freePort()),
      S3_PORT: String(await freePort()),
      IDENTITY_PORT: String(await freePort()),
      DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'vidgen-readme-')),
    };
    const stack = await start(env);
    try {
      // Another shell: only the data folder in common (as the default .data would be).
      const unset = { PORT: '', DYNAMODB_PORT: '', S3_PORT: '', IDENTITY_PORT: '', DYNAMODB_ENDPOINT: '', S3_ENDPOINT: '', TABLE_NAME: '' };
      const result = await runScript('bin/check-readme.ts', [], { ...unset, DATA_DIR: env.DATA_DIR });
      const output = `${result.stdout}${result.stderr}`;
      expect([result.code, output.slice(-6000)]).toEqual([0, expect.stringMatching(/check:readme: every README command ran, and printed the \d+ outputs the README shows\.\n$/)]);
      expect(output).toMatch(/^\s+5 200\n\s+1 429$/m);
      const balance = /^live balance: (\d+) before, (\d+) after$/m.exec(output);
      expect(balance?.[1]).toBe(balance?.[2]);
      expect(output).toContain('saved out/fox.mp4');
      expect(output).toContain('"code":"not_found"');
    } finally {
      expect(await interrupt(stack.child)).toBe(0);
    }
  });
});
