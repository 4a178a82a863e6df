#!/usr/bin/env -S npx tsx
/**
 * `npm run -s check:readme`: runs README.md's walk-through (its bash blocks from "Try it with
 * curl" to "Configuration", in order, in one shell) against the local stack `npm start` runs,
 * on whatever ports, and compares what each command prints with the output the README shows
 * under it (bin/readme/walkthrough.ts says how). The banner's values (key, account, base URL)
 * stand in for the README's placeholders; the few lines a script cannot run are left out
 * (README_SKIPPED). The outputs are those of a first run on a new demo account: on one the
 * README has been run against already, the commands run and the outputs are not compared.
 * Exits 1 when a command fails (the first stops it) or an output differs.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describeAccount } from '#domain/accounts/account-admin';
import { partitionOf } from '#domain/shared/partition';
import { connect } from './admin/target';
import { runningLocalStack } from './local-stack/discovery';
import { localSettings, REPO_ROOT } from './local-stack/settings';
import { outputMatches, printedOutput, readmeScript } from './readme/walkthrough';

const DEMO_OPENING_CREDITS = 1000;

async function main(): Promise<number> {
  const settings = localSettings();
  const stack = runningLocalStack(settings.dataDir);
  if (!stack) {
    console.error(`check:readme: no local stack runs on ${settings.dataDir}. Start it with npm start (and the same DATA_DIR).`);
    return 1;
  }
  const demo = JSON.parse(readFileSync(path.join(settings.dataDir, 'demo-account.json'), 'utf8')) as { apiKey: string; accountId: string };
  const used = await demoAccountUse(demo.accountId);
  if (used) {
    console.error(`check:readme: ${used}: the commands run, their outputs are not compared (they are a first run's).`);
    console.error('  For the whole check: stop npm start, delete the data folder (.data), start it again.\n');
  }
  const outputDir = path.join(REPO_ROOT, 'out', 'readme-check');
  rmSync(outputDir, { recursive: true, force: true });
  mkdirSync(outputDir, { recursive: true });
  const { script, compared } = readmeScript(
    readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8'),
    { KEY: demo.apiKey, ACCOUNT: demo.accountId, BASE: stack.baseUrl },
    used ? undefined : outputDir,
  );
  if (!used) {
    // The README's rate-limit headers count the demo key's requests in this minute: only its own.
    console.error('check:readme: waiting for the next minute, so the demo key\'s rate window holds only the README\'s requests');
    await new Promise((resolve) => setTimeout(resolve, 60_000 - (Date.now() % 60_000) + 200));
  }
  const result = spawnSync('bash', ['-e', '-o', 'pipefail', '-x', '-c', script], {
    cwd: REPO_ROOT,
    stdio: 'inherit',
    // The CLIs must find the stack by themselves, as the README says; never a user's own vidgen config.
    env: { ...process.env, VIDGEN_BASE_URL: '', VIDGEN_API_KEY: '', VIDGEN_CONFIG: path.join(REPO_ROOT, 'out', 'no-vidgen-config.json') },
  });
  if (result.status !== 0) {
    console.error(`\ncheck:readme: a README command failed (exit ${result.status}).`);
    return result.status ?? 1;
  }
  const differing = compared.filter(({ index, command }) => !outputMatches(command.expected, readFileSync(path.join(outputDir, `${index}.out`), 'utf8')));
  for (const { index, command } of differing) {
    console.error(`\ncheck:readme: the README shows another output for\n${command.lines.map((line) => `  ${line}`).join('\n')}`);
    console.error(`README:\n${command.expected.map((line) => `  # ${line}`).join('\n')}`);
    console.error(`printed:\n${printedOutput(readFileSync(path.join(outputDir, `${index}.out`), 'utf8')).split('\n').map((line) => `  # ${line}`).join('\n')}`);
  }
  if (differing.length > 0) {
    console.error(`\ncheck:readme: every README command ran; ${differing.length} of the ${compared.length} outputs it shows differ from what they print.`);
    return 1;
  }
  console.error(`\ncheck:readme: every README command ran${used ? '' : `, and printed the ${compared.length} outputs the README shows`}.`);
  return 0;
}

/** Why the demo account is not as npm start made it (its first run's outputs no longer hold), or undefined when it is. */
async function demoAccountUse(accountId: string): Promise<string | undefined> {
  const connection = connect({});
  try {
    const summary = await describeAccount(connection, accountId);
    if (summary.account.credits !== DEMO_OPENING_CREDITS || summary.ledgerEntries !== 1) {
      return `the demo account has been used (${summary.account.credits} credits, ${summary.ledgerEntries} ledger entries)`;
    }
    const all = await connection.directory.listAll();
    if (all.some((account) => account.accountId === partitionOf(accountId, 'test'))) return 'the demo account has used test mode';
    return undefined;
  } finally {
    connection.db.doc.destroy();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`check:readme: ${(error as Error).message}`);
    process.exit(1);
  },
);
