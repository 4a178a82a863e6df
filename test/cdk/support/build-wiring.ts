import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { installRuntimeGlobals } from '#bin/lambda-streaming.cjs';

/**
 * Child process of test/cdk/lambda-wiring.test.ts: for each check in the JSON file it is given,
 * loads the handler's module and builds the app-context parts it reaches, in a fresh module
 * registry and with exactly the environment given (the function's template environment and the
 * Lambda runtime's variables), as a cold start on Lambda would. One line per check:
 * `WIRING {"label","handler","error"?}`; `error` is what was thrown.
 */
export interface WiringCheck {
  label: string;
  handler: string;
  environment: Record<string, string>;
  /** "module#export" of functions/app-context (test/cdk/support/handler-parts.ts). */
  parts: string[];
}

export const WIRING_LINE = 'WIRING ';

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
const load = createRequire(__filename);

/** Exports whose first use is not a call without arguments: what the handler's first request calls. */
const FIRST_USE: Readonly<Record<string, () => unknown>> = {
  // Its `consume` reads the stores on the first request.
  'rate-limiter#rateLimiter': () => part('stores', 'stores')(),
  // A request through API Gateway; the return URL falls back to the reference's when it has no domain.
  'billing#billingAccount': () => part('billing', 'billingAccount')({ headers: {}, requestContext: {} }),
  // It reads the account's retention on each request: its parts are the stores and the day's length.
  'retention#expiryFor': () => [part('stores', 'stores')(), part('retention', 'retentionDayMs')()],
};

function part(module: string, name: string): (...args: unknown[]) => unknown {
  const exported = (load(module === 'index' ? '#app-context' : `#app-context/${module}`) as Record<string, unknown>)[name];
  if (typeof exported !== 'function') throw new Error(`#app-context/${module} exports no function ${name}.`);
  return exported as (...args: unknown[]) => unknown;
}

function firstUse(key: string): unknown {
  const special = FIRST_USE[key];
  if (special) return special();
  const [module, name] = key.split('#') as [string, string];
  const build = part(module, name);
  if (build.length > 0) throw new Error(`${key} takes arguments: say in FIRST_USE how the handler first calls it.`);
  return build();
}

/** Drops the repository's modules from the registry (packages stay: they read no settings as they load). */
function freshModules(): void {
  for (const file of Object.keys(load.cache)) {
    if (file.startsWith(REPO_ROOT + path.sep) && !file.includes(`${path.sep}node_modules${path.sep}`)) delete load.cache[file];
  }
}

function useEnvironment(environment: Record<string, string>): void {
  for (const name of Object.keys(process.env)) delete process.env[name];
  Object.assign(process.env, environment);
}

async function check({ handler, environment, parts }: WiringCheck): Promise<string | undefined> {
  freshModules();
  useEnvironment(environment);
  try {
    load(`#handlers/${handler}`);
    for (const key of parts) await firstUse(key);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

async function main(file: string): Promise<void> {
  const checks = JSON.parse(readFileSync(file, 'utf8')) as WiringCheck[];
  // The runtime's `awslambda` global, which a streaming handler's module uses as it loads.
  installRuntimeGlobals();
  const lines: string[] = [];
  for (const one of checks) {
    const error = await check(one);
    lines.push(WIRING_LINE + JSON.stringify({ label: one.label, handler: one.handler, ...(error !== undefined && { error }) }));
  }
  // A built client may hold a socket or a timer: exit once the report is out.
  process.stdout.write(`${lines.join('\n')}\n`, () => process.exit(0));
}

if (require.main === module) void main(process.argv[2]!);
