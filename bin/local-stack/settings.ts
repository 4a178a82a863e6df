import path from 'node:path';

/**
 * Where the local stack lives: ports, names and the git-ignored data folder. The local server,
 * the admin CLI (which targets the running local stack by default) and the README agree on
 * these through this one module.
 */
export const REPO_ROOT = path.resolve(__dirname, '..', '..');

function port(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65535) {
    throw new Error(`${name} must be a port number (0-65535); got "${raw}".`);
  }
  return value;
}

/**
 * A second bucket in the local s3rver, standing for a customer's own storage: deliveries
 * (docs/storage.md) are tried by hand into it with `npm run -s local:presign -- KEY`.
 */
export const CUSTOMER_BUCKET = 'customer-deliveries';

export interface LocalSettings {
  host: string;
  apiPort: number;
  dynamodbPort: number;
  s3Port: number;
  /** The local identity server (Cognito's protocol); unset: a free port. */
  identityPort?: number;
  tableName: string;
  mediaBucket: string;
  region: string;
  dataDir: string;
  /**
   * The API's base URL as clients should see it (in the served OpenAPI document and docs page);
   * by default the address the stack listens on. Never taken from a request's Host header.
   */
  apiBaseUrl?: string;
  /** How often the sweeper runs (every minute on AWS; more often locally, for quick feedback). */
  sweepIntervalSeconds: number;
}

export function localSettings(env: NodeJS.ProcessEnv = process.env): LocalSettings {
  return {
    host: '127.0.0.1',
    apiPort: port(env, 'PORT', 3000),
    dynamodbPort: port(env, 'DYNAMODB_PORT', 8000),
    s3Port: port(env, 'S3_PORT', 4569),
    identityPort: port(env, 'IDENTITY_PORT', 9229),
    tableName: env.TABLE_NAME ?? 'vidgen-local',
    mediaBucket: env.MEDIA_BUCKET ?? 'vidgen-media-local',
    region: env.AWS_REGION ?? 'local',
    dataDir: path.resolve(env.DATA_DIR ?? path.join(REPO_ROOT, '.data')),
    sweepIntervalSeconds: Number(env.SWEEP_INTERVAL_SECONDS ?? 5),
    ...(env.API_BASE_URL && { apiBaseUrl: env.API_BASE_URL }),
  };
}
