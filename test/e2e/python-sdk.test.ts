import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { LocalStack } from '#bin/local-stack/stack';
import { createAccount, createApiKey } from '#domain/accounts/account-admin';
import { signedInHolder } from '#test-support/identity';
import { startTestApi } from '#test-support/local-api';
import { REPO_ROOT } from '#test-support/run-script';

/**
 * The Python SDK (python/) runs its own tests with `python3 -m unittest`: unit tests (the shared
 * webhook vectors, retry rules against a scripted local server) and every method once against
 * this local stack, with a test key made here (and, for keys and billing, which take a session
 * only, a signed-in holder's access token from the local identity server).
 */
jest.setTimeout(180_000);

let stack: LocalStack;

beforeAll(async () => {
  // A short simulated delay: long enough to cancel a task and to see progress while waiting.
  stack = await startTestApi({ SIM_DELAY_SECONDS: '2', PROVIDER: 'simulated' });
});
afterAll(async () => {
  await stack?.stop();
});

/** Runs python3 in the repository (never blocking the event loop: the stack runs in this process). */
function python(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', args, { cwd: REPO_ROOT, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

it('passes its unit tests and every method against the local stack with a test key and a session', async () => {
  const { account } = await createAccount(stack.context, { credits: 100, paidAccess: true, subscriptionStatus: 'active' });
  const { apiKey } = await createApiKey(stack.context, account.accountId, { rateLimit: 1000, mode: 'test' });
  const holder = await signedInHolder(stack);
  const run = await python(['-m', 'unittest', 'discover', '-v', '-s', 'python/tests', '-t', 'python'], {
    VIDGEN_TEST_BASE_URL: stack.baseUrl,
    VIDGEN_TEST_API_KEY: apiKey,
    VIDGEN_TEST_SESSION_TOKEN: holder.accessToken,
  });
  // On failure the whole output is the message: which Python test failed, and why.
  expect(run.code === 0 ? 'exit 0' : `exit ${run.code}\n${run.output}`).toBe('exit 0');
  expect(run.output).toMatch(/^Ran \d+ tests in/m);
  expect(run.output).not.toMatch(/skipped/);
  expect(run.output).toMatch(/test_create_list_test_verify_deliveries_and_delete \(.*\) \.\.\. ok/);
  expect(run.output).toMatch(/test_create_update_use_and_revoke_a_key \(.*\) \.\.\. ok/);
});

it('has a method for every public method of the TypeScript client', async () => {
  const source = readFileSync(path.join(REPO_ROOT, 'client', 'src', 'index.ts'), 'utf8');
  const body = source.slice(source.indexOf('export class VidgenClient'), source.indexOf('\n}\n', source.indexOf('export class VidgenClient')));
  const tsMethods = [...body.matchAll(/^ {2}(?:async )?([a-z]\w*)\(/gm)].filter((m) => m[1] !== 'constructor')
    .map((m) => m[1]!.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
  expect(tsMethods).toEqual(expect.arrayContaining(['generate_video', 'wait_for_image', 'list_webhook_deliveries']));
  const run = await python(['-c', 'import json, vidgen; print(json.dumps([m for m in dir(vidgen.VidgenClient) if not m.startswith("_")]))'], {
    PYTHONPATH: path.join(REPO_ROOT, 'python'),
  });
  expect(run).toMatchObject({ code: 0 });
  expect(JSON.parse(run.output)).toEqual(expect.arrayContaining(tsMethods));
});
