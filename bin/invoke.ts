/**
 * `npm run invoke -- <function> <event.json> [--set NAME=value]... [--cdk-out dir]`
 *
 * Invokes a function's synthesized bundle (cdk.out, from `npm run synth`) against the running
 * local stack, without Docker: the same index.js Lambda would run, in a fresh node process,
 * configured like `npm start`'s handlers (DynamoDB Local, s3rver, PROVIDER=simulated).
 * <function> is a handler name (get-credits, authorizer, sweeper, copy-output, ...).
 * {{DEMO_ACCOUNT_ID}}, {{DEMO_KEY_ID}} and {{DEMO_API_KEY}} in the event are filled from the
 * local stack's demo account; other {{NAME}}s from --set NAME=value or the environment.
 *
 * Prints the handler's result as JSON on stdout (its logs go to stderr). Exit code 0 when the
 * handler returned (a 4xx included), 1 when it threw, failed to load or answered 5xx (with
 * "Is the local stack running?" when its DynamoDB Local or s3rver does not answer), 2 for a
 * usage mistake.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { AssemblyError, findBundledFunction, listBundledFunctions } from './invoke/assembly';
import { invokeBundle } from './invoke/invoke-bundle';
import { demoAccountValues, fillPlaceholders, invokeEnvironment, isServerErrorResult, localStackHint } from './invoke/local-env';
import { REPO_ROOT } from './local-stack/settings';

const USAGE = `Usage: npm run invoke -- <function> <event.json> [--set NAME=value]... [--cdk-out <dir>] [--timeout <ms>]
       npm run invoke -- <function> <event.json> [--set NAME=value]... --print-event   (the filled event, e.g. for sam local invoke)
       npm run invoke -- --list [--cdk-out <dir>]
Run \`npm run synth\` first; start the local stack (npm start) for functions that use the table.`;

class UsageError extends Error {}

interface Args {
  list: boolean;
  printEvent: boolean;
  name?: string;
  eventFile?: string;
  cdkOut: string;
  timeoutMs?: number;
  sets: Record<string, string>;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { list: false, printEvent: false, cdkOut: path.join(REPO_ROOT, 'cdk.out'), sets: {} };
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    const value = () => {
      const next = argv[++i];
      if (next === undefined) throw new UsageError(`${arg} needs a value.`);
      return next;
    };
    if (arg === '--list') args.list = true;
    else if (arg === '--print-event') args.printEvent = true;
    else if (arg === '--cdk-out') args.cdkOut = path.resolve(value());
    else if (arg === '--timeout') args.timeoutMs = Number(value());
    else if (arg === '--set') {
      const pair = value();
      const eq = pair.indexOf('=');
      if (eq < 1) throw new UsageError(`--set takes NAME=value; got "${pair}".`);
      args.sets[pair.slice(0, eq)] = pair.slice(eq + 1);
    } else if (arg === '--help' || arg === '-h') throw new UsageError('');
    else if (arg.startsWith('--')) throw new UsageError(`Unknown option ${arg}.`);
    else positional.push(arg);
  }
  if (!args.list) {
    if (positional.length !== 2) throw new UsageError('Give a function and an event file.');
    [args.name, args.eventFile] = positional as [string, string];
  }
  if (args.timeoutMs !== undefined && !(args.timeoutMs > 0)) throw new UsageError('--timeout must be a positive number of ms.');
  return args;
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  if (args.list) {
    for (const fn of listBundledFunctions(args.cdkOut)) {
      process.stdout.write(`${fn.handler.padEnd(18)} ${fn.stack}/${fn.logicalId}  ${path.relative(process.cwd(), fn.assetDir)}\n`);
    }
    return 0;
  }
  let event: unknown;
  try {
    event = JSON.parse(readFileSync(args.eventFile!, 'utf8'));
  } catch (error) {
    throw new UsageError(`Cannot read the event ${args.eventFile}: ${(error as Error).message}`);
  }
  const onlyStrings = Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  event = fillPlaceholders(event, { ...demoAccountValues(), ...onlyStrings, ...args.sets });
  if (args.printEvent) {
    process.stdout.write(`${JSON.stringify(event, null, 2)}\n`);
    return 0;
  }

  const fn = findBundledFunction(args.cdkOut, args.name!);
  process.stderr.write(`invoke ${fn.handler} (${fn.stack}/${fn.logicalId}) from ${path.relative(process.cwd(), fn.assetDir)}/${fn.file}\n`);
  const environment = invokeEnvironment(fn);
  const { outcome } = await invokeBundle(fn, event, {
    environment,
    logTo: process.stderr,
    // As long as Lambda would let it run (the MCP function: 60 s), unless --timeout says otherwise.
    timeoutMs: args.timeoutMs ?? fn.timeoutSeconds * 1000,
  });
  if (outcome.ok) {
    process.stderr.write(`returned in ${outcome.durationMs} ms\n`);
    process.stdout.write(`${JSON.stringify(outcome.result, null, 2)}\n`);
    if (!isServerErrorResult(outcome.result)) return 0;
  } else {
    process.stdout.write(
      `${JSON.stringify({ errorType: outcome.errorType, errorMessage: outcome.errorMessage, phase: outcome.phase }, null, 2)}\n`,
    );
    if (outcome.stack) process.stderr.write(`${outcome.stack}\n`);
  }
  const hint = await localStackHint(environment);
  process.stderr.write(`${hint ?? (outcome.ok ? 'The handler answered with a server error (5xx).' : 'The handler failed.')}\n`);
  return 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      if (error.message) process.stderr.write(`${error.message}\n`);
      process.stderr.write(`${USAGE}\n`);
      process.exit(2);
    }
    process.stderr.write(`${error instanceof AssemblyError ? '' : 'invoke failed: '}${(error as Error).message}\n`);
    process.exit(error instanceof AssemblyError ? 2 : 1);
  },
);
