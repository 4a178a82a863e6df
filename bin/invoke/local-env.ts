import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { hashApiKey, keyIdFromHash } from '#domain/accounts/api-key';
import { localTarget, notRunningHint, type LocalTarget } from '../local-stack/discovery';
import { localSettings, REPO_ROOT, type LocalSettings } from '../local-stack/settings';
import { canConnectNow } from '../local-stack/wait-for-port';
import type { BundledFunction } from './assembly';

/**
 * The environment a bundled function gets when invoked against the running local stack: the
 * function's own settings from the template (timeouts, rate limit, NODE_OPTIONS), pointed at
 * DynamoDB Local, s3rver and the local /media route of the running `npm start`, whatever its
 * ports (bin/local-stack/discovery.ts). Variables you set yourself win.
 */
const LOCAL_OVERRIDABLE = [
  'TABLE_NAME',
  'AWS_REGION',
  'DYNAMODB_ENDPOINT',
  'S3_ENDPOINT',
  'MEDIA_BUCKET',
  'PUBLIC_MEDIA_BASE_URL',
  'PROVIDER',
  'SIM_DELAY_SECONDS',
  'AUTH_CACHE_TTL_SECONDS',
  'DEFAULT_RATE_LIMIT',
  'TASK_TIMEOUT_SECONDS',
  'REPLICATE_API_TOKEN',
  'REPLICATE_BASE_URL',
  'REPLICATE_TIMEOUT_MS',
  'REPLICATE_MODELS',
  'COPY_WORKER_FUNCTION',
] as const;

export function localStackEnvironment(target: LocalTarget = localTarget()): Record<string, string> {
  return {
    TABLE_NAME: target.tableName,
    AWS_REGION: target.region,
    DYNAMODB_ENDPOINT: target.dynamodbEndpoint,
    S3_ENDPOINT: target.s3Endpoint,
    MEDIA_BUCKET: target.mediaBucket,
    PUBLIC_MEDIA_BASE_URL: target.publicMediaBaseUrl,
    PROVIDER: 'simulated',
  };
}

export function invokeEnvironment(
  fn: BundledFunction,
  local: Record<string, string> = localStackEnvironment(),
  env: Record<string, string | undefined> = process.env,
): Record<string, string> {
  const result: Record<string, string> = { ...fn.literalEnvironment, ...local };
  for (const name of LOCAL_OVERRIDABLE) {
    const value = env[name];
    if (value !== undefined && value !== '') result[name] = value;
  }
  if (result.PROVIDER !== 'replicate') {
    for (const name of Object.keys(result)) if (name.startsWith('REPLICATE_')) delete result[name];
  }
  // The deployed value names a Lambda function; locally, copies run in the invoked process.
  if (!env.COPY_WORKER_FUNCTION) delete result.COPY_WORKER_FUNCTION;
  // The SDK's Node-version notice is noise on these Node 20 machines (Lambda runs 24).
  result.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  // Lambda resolves the modules a bundle leaves out (the AWS SDK) through NODE_PATH, from the
  // runtime's own node_modules; here the repository's stands in. Needed when cdk.out is elsewhere.
  result.NODE_PATH = env.NODE_PATH || path.join(REPO_ROOT, 'node_modules');
  return result;
}

/** Values for {{PLACEHOLDERS}} in sample events: the local stack's demo account, if it has one. */
export function demoAccountValues(settings: LocalSettings = localSettings()): Record<string, string> {
  const file = path.join(settings.dataDir, 'demo-account.json');
  if (!existsSync(file)) return {};
  try {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { accountId?: unknown; apiKey?: unknown };
    if (typeof saved.accountId !== 'string' || typeof saved.apiKey !== 'string') return {};
    return {
      DEMO_ACCOUNT_ID: saved.accountId,
      DEMO_API_KEY: saved.apiKey,
      DEMO_KEY_ID: keyIdFromHash(hashApiKey(saved.apiKey)),
    };
  } catch {
    return {};
  }
}

/**
 * Replaces {{NAME}} in every string of an event with values (later sources win): the demo
 * account, environment variables, then --set NAME=value. Unfilled placeholders are an error.
 */
export function fillPlaceholders(event: unknown, values: Record<string, string>): unknown {
  const missing = new Set<string>();
  const fill = (value: unknown): unknown => {
    if (typeof value === 'string') {
      return value.replace(/\{\{([A-Z0-9_]+)\}\}/g, (whole, name: string) => {
        const found = values[name];
        if (found === undefined) missing.add(name);
        return found ?? whole;
      });
    }
    if (Array.isArray(value)) return value.map(fill);
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, fill(inner)]));
    }
    return value;
  };
  const filled = fill(event);
  if (missing.size > 0) {
    const names = [...missing].sort();
    const demo = names.filter((name) => name.startsWith('DEMO_'));
    throw new Error(
      `The event needs ${names.map((name) => `{{${name}}}`).join(', ')}: pass --set NAME=value` +
        (demo.length ? ' (the DEMO_ values come from the local stack: start it once with `npm start`).' : '.'),
    );
  }
  return filled;
}

/**
 * The local endpoints in a function's environment that nothing answers on: with the local stack
 * down, a handler still returns (a 500 envelope), so the CLI says why instead.
 */
export async function localStackHint(
  environment: Record<string, string>,
  target: LocalTarget = localTarget(),
): Promise<string | undefined> {
  const endpoints: Array<[string, string | undefined]> = [
    ['DynamoDB Local', environment.DYNAMODB_ENDPOINT],
    ['s3rver', environment.S3_ENDPOINT],
  ];
  for (const [name, endpoint] of endpoints) {
    if (!endpoint) continue;
    const url = new URL(endpoint);
    if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) continue;
    if (!(await canConnectNow(url.hostname.replace(/^\[|\]$/g, ''), Number(url.port || 80)))) {
      return notRunningHint(target, name, endpoint, 'DYNAMODB_PORT and S3_PORT (or DYNAMODB_ENDPOINT and S3_ENDPOINT)');
    }
  }
  return undefined;
}

/** A Lambda proxy result with a 5xx status: the handler ran but the call failed. */
export function isServerErrorResult(result: unknown): boolean {
  const status = (result as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' && status >= 500;
}
