import { DEFAULT_RATE_LIMIT_PER_MINUTE } from './domain/rate-limit';

/**
 * Runtime configuration, read once per cold start from the environment. A required variable
 * that is missing or a value that does not parse stops the function at once with a message
 * naming the variable, instead of limping on with a silent default.
 */
export type ProviderConfig =
  | { name: 'simulated'; delaySeconds: number }
  | {
      name: 'replicate';
      baseUrl: string;
      /** Either the token itself (local use) or the Secrets Manager secret holding it (AWS). */
      apiToken: { value: string } | { secretArn: string };
      timeoutMs: number;
      /** JSON text of the model mapping; the shipped default-models.json when unset. */
      modelsJson?: string;
    };

export interface Config {
  tableName: string;
  region: string;
  /** DynamoDB Local's URL on the local stack; unset on AWS. */
  dynamodbEndpoint?: string;
  /** How long an authorizer decision is cached (API Gateway and the local stack alike). */
  authCacheTtlSeconds: number;
  /** Requests per minute for keys without their own limit. */
  defaultRateLimit: number;
  mediaBucket: string;
  /** s3rver's URL on the local stack; unset on AWS. */
  s3Endpoint?: string;
  /** Where media objects are served from, without a trailing slash (the CDN on AWS). */
  publicMediaBaseUrl: string;
  provider: ProviderConfig;
  /** A task still processing after this long fails with `timeout`. */
  taskTimeoutSeconds: number;
  /** The Lambda that copies results (invoked asynchronously); unset: copy in this process. */
  copyWorkerFunction?: string;
  webhooks: WebhookConfig;
}

export interface WebhookConfig {
  /** The SQS queue of deliveries; unset: an in-process queue (the local stack and tests only). */
  queueUrl?: string;
  /** Seconds before each retry of a failed delivery, in order; after the last, it is failed. */
  retrySchedule: number[];
  /** Accept http:// endpoints on loopback and deliver to loopback (a developer's receiver). */
  allowLoopback: boolean;
}

/** Defaults shared with the CDK stack, which sets the same variables on every function. */
export const CONFIG_DEFAULTS = {
  authCacheTtlSeconds: 60,
  defaultRateLimit: DEFAULT_RATE_LIMIT_PER_MINUTE,
  simDelaySeconds: 10,
  replicateBaseUrl: 'https://api.replicate.com',
  replicateTimeoutMs: 10_000,
  taskTimeoutSeconds: 30 * 60,
  /** Growing delays over more than 24 h (27.6 h in all): the deployed schedule. */
  webhookRetrySchedule: [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000],
} as const;

/** What the local stack uses: the first retries within seconds, so they are seen while watching. */
export const LOCAL_WEBHOOK_RETRY_SCHEDULE = [2, 10, 30, 120, 600, 3_600, 21_600, 64_800] as const;

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function optional(env: Env, name: string): string | undefined {
  return env[name]?.trim() || undefined;
}

function required(env: Env, name: string): string {
  const value = optional(env, name);
  if (!value) throw new ConfigError(`Missing required environment variable ${name}.`);
  return value;
}

function wholeNumber(env: Env, name: string, fallback: number, min: number): number {
  const raw = optional(env, name);
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new ConfigError(`${name} must be a whole number >= ${min}; got "${raw}".`);
  }
  return value;
}

function url(env: Env, name: string, fallback?: string): string {
  const raw = fallback === undefined ? required(env, name) : (optional(env, name) ?? fallback);
  try {
    const parsed = new URL(raw);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL; got "${raw}".`);
  }
  return raw.replace(/\/+$/, '');
}

function secondsList(env: Env, name: string, fallback: readonly number[]): number[] {
  const raw = optional(env, name);
  if (!raw) return [...fallback];
  const values = raw.split(',').map((part) => Number(part.trim()));
  if (!values.every((value) => Number.isFinite(value) && value >= 0)) {
    throw new ConfigError(`${name} must be a comma-separated list of seconds; got "${raw}".`);
  }
  return values;
}

function flag(env: Env, name: string): boolean {
  const raw = optional(env, name);
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new ConfigError(`${name} must be "true" or "false"; got "${raw}".`);
}

function replicateToken(env: Env): { value: string } | { secretArn: string } {
  const value = optional(env, 'REPLICATE_API_TOKEN');
  if (value) return { value };
  const secretArn = optional(env, 'REPLICATE_API_TOKEN_SECRET_ARN');
  if (secretArn) return { secretArn };
  throw new ConfigError('Missing REPLICATE_API_TOKEN or REPLICATE_API_TOKEN_SECRET_ARN (PROVIDER=replicate).');
}

function provider(env: Env): ProviderConfig {
  const name = required(env, 'PROVIDER');
  if (name === 'simulated') {
    return { name, delaySeconds: wholeNumber(env, 'SIM_DELAY_SECONDS', CONFIG_DEFAULTS.simDelaySeconds, 0) };
  }
  if (name === 'replicate') {
    const modelsJson = optional(env, 'REPLICATE_MODELS');
    return {
      name,
      baseUrl: url(env, 'REPLICATE_BASE_URL', CONFIG_DEFAULTS.replicateBaseUrl),
      apiToken: replicateToken(env),
      timeoutMs: wholeNumber(env, 'REPLICATE_TIMEOUT_MS', CONFIG_DEFAULTS.replicateTimeoutMs, 1),
      ...(modelsJson && { modelsJson }),
    };
  }
  throw new ConfigError(`PROVIDER must be "simulated" or "replicate"; got "${name}".`);
}

/**
 * API_BASE_URL: the API's public base URL (ending in /api/v1) where the request cannot tell it
 * trustworthily, as on the local stack (which sets it). Read on its own, not in loadConfig: the
 * public document endpoints need nothing else.
 */
export function configuredApiBaseUrl(env: Env = process.env): string | undefined {
  return optional(env, 'API_BASE_URL') && url(env, 'API_BASE_URL');
}

export function loadConfig(env: Env = process.env): Config {
  const dynamodbEndpoint = optional(env, 'DYNAMODB_ENDPOINT');
  const s3Endpoint = optional(env, 'S3_ENDPOINT');
  const copyWorkerFunction = optional(env, 'COPY_WORKER_FUNCTION');
  const webhookQueueUrl = optional(env, 'WEBHOOK_QUEUE_URL');
  return {
    tableName: required(env, 'TABLE_NAME'),
    region: required(env, 'AWS_REGION'),
    ...(dynamodbEndpoint && { dynamodbEndpoint }),
    authCacheTtlSeconds: wholeNumber(env, 'AUTH_CACHE_TTL_SECONDS', CONFIG_DEFAULTS.authCacheTtlSeconds, 0),
    defaultRateLimit: wholeNumber(env, 'DEFAULT_RATE_LIMIT', CONFIG_DEFAULTS.defaultRateLimit, 1),
    mediaBucket: required(env, 'MEDIA_BUCKET'),
    ...(s3Endpoint && { s3Endpoint }),
    publicMediaBaseUrl: url(env, 'PUBLIC_MEDIA_BASE_URL'),
    provider: provider(env),
    taskTimeoutSeconds: wholeNumber(env, 'TASK_TIMEOUT_SECONDS', CONFIG_DEFAULTS.taskTimeoutSeconds, 60),
    ...(copyWorkerFunction && { copyWorkerFunction }),
    webhooks: {
      ...(webhookQueueUrl && { queueUrl: webhookQueueUrl }),
      retrySchedule: secondsList(env, 'WEBHOOK_RETRY_SCHEDULE', CONFIG_DEFAULTS.webhookRetrySchedule),
      allowLoopback: flag(env, 'WEBHOOK_ALLOW_LOOPBACK'),
    },
  };
}
