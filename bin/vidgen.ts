#!/usr/bin/env -S npx tsx
/**
 * `vidgen`: the command line for API users (`npx vidgen <command>` through package.json "bin",
 * or `npm run -s vidgen -- <command>`). Built on the client in client/src. Results on stdout
 * (JSON only with --json), progress and errors on stderr. Exit codes: 0 done, 1 API or network
 * error or failed task, 2 usage error, 130 interrupted.
 */
import { ApiError, VidgenClient, WaitTimeoutError } from '#client';
import { actsAsHolder, parseInvocation, UsageError, USAGE, VIDGEN } from './vidgen/args';
import { runCommand } from './vidgen/commands';
import { configPath, loadConfig } from './vidgen/config';
import { login, logout, sessionPath, sessionToken } from './vidgen/session';
import { DownloadError } from './vidgen/download';
import { serveMcp } from './vidgen/mcp';

async function main(argv: string[], signal: AbortSignal): Promise<number> {
  const command = parseInvocation(argv);
  if (command.name === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command.name === 'login') {
    const session = await login(command.email, command.password);
    const data = { email: session.email, expires_at: new Date(session.expiresAt).toISOString(), stored_in: sessionPath() };
    process.stdout.write(command.json ? `${JSON.stringify(data, null, 2)}\n` : `Signed in as ${data.email}; the session is in ${data.stored_in}.\n`);
    return 0;
  }
  if (command.name === 'logout') {
    const existed = logout();
    process.stdout.write(command.json ? `${JSON.stringify({ signed_out: existed })}\n` : existed ? 'Signed out.\n' : 'No session to forget.\n');
    return 0;
  }
  const config = loadConfig();
  // API keys cannot manage keys or the team (403), and belong to one account: these commands, and
  // any command given an account, act as the signed-in holder even when a key is configured.
  const credential =
    command.account !== undefined
      ? await sessionCredential(`--account ${command.account} acts as the signed-in account holder in one of their accounts (an API key belongs to one account). Sign in first: ${VIDGEN} login --email E --password P.`)
      : actsAsHolder(command)
      ? await sessionCredential(`"${command.name}${command.name === 'account' ? ' retention' : ''}" acts as the signed-in account holder (an API key cannot manage ${command.name === 'keys' ? 'keys' : command.name === 'account' ? 'retention' : 'the account\'s team'}). Sign in first: ${VIDGEN} login --email E --password P.`)
      : config.apiKey
        ? { apiKey: config.apiKey }
        : await sessionCredential(`No API key and no session. Set VIDGEN_API_KEY, put {"apiKey": "vg_live_..."} in ${configPath()}, or sign in: ${VIDGEN} login --email E --password P.`);
  const client = new VidgenClient({
    ...credential,
    ...(command.account !== undefined && { account: command.account }),
    baseUrl: config.baseUrl,
    onRetry: ({ attempt, delayMs, error }) =>
      process.stderr.write(`retrying in ${(delayMs / 1000).toFixed(1)}s (attempt ${attempt}) after [${error.code}] ${error.message}\n`),
  });
  // Keys are managed for both modes at once (keys create takes --mode): the banner would mislead.
  if (client.mode === 'test' && !actsAsHolder(command)) {
    // On stderr, so --json output stays JSON.
    process.stderr.write(`vidgen: TEST MODE (${'apiKey' in credential ? 'vg_test_ key' : 'VIDGEN_MODE=test'}): test data, test credits, simulated provider\n`);
  }
  target = config;
  if (command.name === 'mcp') return serveMcp(client, signal);
  return runCommand(command, client, { stdout: process.stdout, stderr: process.stderr, signal });
}

/** The stored session of `vidgen login` (refreshed as needed), in VIDGEN_MODE (default live); `missing` says what to do without one. */
async function sessionCredential(missing: string): Promise<{ sessionToken: () => Promise<string>; mode: 'live' | 'test' }> {
  if (!(await sessionToken())) throw new UsageError(missing);
  const mode = process.env.VIDGEN_MODE?.trim() || 'live';
  if (mode !== 'live' && mode !== 'test') throw new UsageError(`VIDGEN_MODE must be "live" or "test"; got "${mode}".`);
  return { sessionToken: async () => (await sessionToken())!, mode };
}

/** The base URL in use and where it came from, once known. */
let target: { baseUrl: string; baseUrlFrom: string } | undefined;

/** Reports a failure on stderr (and as {"error": ...} on stdout with --json); returns the exit code. */
function fail(error: unknown, json: boolean, signal: AbortSignal): number {
  if (error instanceof UsageError) {
    process.stderr.write(`vidgen: ${error.message}\nRun "${VIDGEN} --help" for usage.\n`);
    return 2;
  }
  if (signal.aborted) return 130; // the command already said where things stand
  let code: string;
  let message: string;
  let extra: Record<string, unknown> = {};
  if (error instanceof ApiError) {
    ({ code, message } = error);
    extra = { status: error.status, ...(error.requestId && { request_id: error.requestId }) };
    if (code === 'network_error' && target) {
      message += ` Nothing answered at ${target.baseUrl} (from ${target.baseUrlFrom}). Is the API running (npm start)? Set VIDGEN_BASE_URL to its base URL.`;
    }
    process.stderr.write(`error [${code}]: ${message}${error.requestId ? ` (request id ${error.requestId})` : ''}\n`);
  } else {
    code = error instanceof WaitTimeoutError ? 'wait_timeout' : error instanceof DownloadError ? 'download_failed' : 'cli_error';
    message = error instanceof Error ? error.message : String(error);
    if (error instanceof WaitTimeoutError) {
      const id = 'video_id' in error.lastTask ? error.lastTask.video_id : error.lastTask.image_id;
      message += ` It carries on: ${VIDGEN} status ${id} --wait`;
    }
    process.stderr.write(`error [${code}]: ${message}\n`);
  }
  if (json) process.stdout.write(`${JSON.stringify({ error: { code, message, ...extra } }, null, 2)}\n`);
  return 1;
}

const argv = process.argv.slice(2);
const interrupt = new AbortController();
// Ctrl-C, or a kill from a script or a closing terminal: `webhooks listen` removes its endpoint either way.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => interrupt.abort());

main(argv, interrupt.signal)
  .catch((error: unknown) => fail(error, argv.includes('--json'), interrupt.signal))
  .then((code) => {
    process.exitCode = code;
  });
