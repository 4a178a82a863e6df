#!/usr/bin/env -S npx tsx
/**
 * `npm run -s check:readme`: runs README.md's walk-through (its bash blocks from "Try it with
 * curl" to "Configuration", in order, in one shell) against the local stack `npm start` runs,
 * on whatever ports. The banner's values (key, account, base URL) stand in for the README's
 * placeholders; the few lines a script cannot run are left out (README_SKIPPED). Exits with
 * the shell's status: the first command that fails stops it.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { runningLocalStack } from './local-stack/discovery';
import { localSettings, REPO_ROOT } from './local-stack/settings';
import { readmeScript } from './readme/walkthrough';

const settings = localSettings();
const stack = runningLocalStack(settings.dataDir);
if (!stack) {
  console.error(`check:readme: no local stack runs on ${settings.dataDir}. Start it with npm start (and the same DATA_DIR).`);
  process.exit(1);
}
const demo = JSON.parse(readFileSync(path.join(settings.dataDir, 'demo-account.json'), 'utf8')) as { apiKey: string; accountId: string };
const script = readmeScript(readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8'), {
  KEY: demo.apiKey,
  ACCOUNT: demo.accountId,
  BASE: stack.baseUrl,
});
const result = spawnSync('bash', ['-e', '-o', 'pipefail', '-x', '-c', script], {
  cwd: REPO_ROOT,
  stdio: 'inherit',
  // The CLIs must find the stack by themselves, as the README says; never a user's own vidgen config.
  env: { ...process.env, VIDGEN_BASE_URL: '', VIDGEN_API_KEY: '', VIDGEN_CONFIG: path.join(REPO_ROOT, 'out', 'no-vidgen-config.json') },
});
console.error(result.status === 0 ? '\ncheck:readme: every README command ran.' : `\ncheck:readme: a README command failed (exit ${result.status}).`);
process.exit(result.status ?? 1);
