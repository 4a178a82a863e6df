import { DEFAULT_RATE_LIMIT_PER_MINUTE } from './domain/rate-limit';

/**
 * Runtime configuration, read once per cold start from the environment. A required variable
 * that is missing or a number that does not parse stops the function at once with a message
 * naming the variable, instead of limping on with a silent default.
 */
export interface Config {
  tableName: string;
  region: string;
  /** DynamoDB Local's URL on the local stack; unset on AWS. */
  dynamodbEndpoint?: string;
  /** How long an authorizer decision is cached (API Gateway and the local stack alike). */
  authCacheTtlSeconds: number;
  /** Requests per minute for keys without their own limit. */
  defaultRateLimit: number;
}

/** Defaults shared with the CDK stack, which sets the same variables on every function. */
export const CONFIG_DEFAULTS = {
  authCacheTtlSeconds: 60,
  defaultRateLimit: DEFAULT_RATE_LIMIT_PER_MINUTE,
} as const;

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function required(env: Env, name: string): string {
  const value = env[name]?.trim();
  if (!value) throw new ConfigError(`Missing required environment variable ${name}.`);
  return value;
}

function wholeNumber(env: Env, name: string, fallback: number, min: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new ConfigError(`${name} must be a whole number >= ${min}; got "${raw}".`);
  }
  return value;
}

export function loadConfig(env: Env = process.env): Config {
  const dynamodbEndpoint = env.DYNAMODB_ENDPOINT?.trim();
  return {
    tableName: required(env, 'TABLE_NAME'),
    region: required(env, 'AWS_REGION'),
    ...(dynamodbEndpoint && { dynamodbEndpoint }),
    authCacheTtlSeconds: wholeNumber(env, 'AUTH_CACHE_TTL_SECONDS', CONFIG_DEFAULTS.authCacheTtlSeconds, 0),
    defaultRateLimit: wholeNumber(env, 'DEFAULT_RATE_LIMIT', CONFIG_DEFAULTS.defaultRateLimit, 1),
  };
}
