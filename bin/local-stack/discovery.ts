import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { localSettings, type LocalSettings } from './settings';
import { isAlive } from './process-alive';

/**
 * How the CLIs (admin, vidgen, `npm run invoke`) find the local stack that `npm start` runs,
 * whatever ports it was given: the stack writes its addresses to its data folder while it runs,
 * and each address is taken, first to last, from the variables you set (DYNAMODB_ENDPOINT,
 * DYNAMODB_PORT...), that file, then the defaults.
 */
export const ADDRESS_FILE = 'local-stack.json';

export interface LocalStackAddresses {
  /** The API's base URL (ending in /api/v1). */
  baseUrl: string;
  dynamodbEndpoint: string;
  s3Endpoint: string;
  /** Where /media serves the bucket's objects. */
  publicMediaBaseUrl: string;
  tableName: string;
  mediaBucket: string;
  region: string;
  /** The local identity server: Cognito's API endpoint, the user pool and its app client. */
  identityEndpoint?: string;
  userPoolId?: string;
  userPoolClientId?: string;
  /** The process serving them: a file left by one that is gone is ignored. */
  pid: number;
}

export function addressFile(dataDir: string): string {
  return path.join(dataDir, ADDRESS_FILE);
}

export function writeAddresses(dataDir: string, addresses: LocalStackAddresses): void {
  writeFileSync(addressFile(dataDir), `${JSON.stringify(addresses, null, 2)}\n`);
}

/** Removes the file, if it is still this process's (a second stack may have taken the folder over). */
export function removeAddresses(dataDir: string, pid: number = process.pid): void {
  if (readAddresses(dataDir)?.pid === pid) rmSync(addressFile(dataDir), { force: true });
}

/** The addresses of the local stack running on this data folder, if one is. */
export function runningLocalStack(dataDir: string): LocalStackAddresses | undefined {
  const addresses = readAddresses(dataDir);
  return addresses && isAlive(addresses.pid) ? addresses : undefined;
}

function readAddresses(dataDir: string): LocalStackAddresses | undefined {
  const file = addressFile(dataDir);
  if (!existsSync(file)) return undefined;
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<LocalStackAddresses>;
    const strings = ['baseUrl', 'dynamodbEndpoint', 's3Endpoint', 'publicMediaBaseUrl', 'tableName', 'mediaBucket', 'region'] as const;
    if (typeof parsed.pid !== 'number' || !strings.every((name) => typeof parsed[name] === 'string')) return undefined;
    return parsed as LocalStackAddresses;
  } catch {
    return undefined;
  }
}

export interface LocalTarget extends Omit<LocalStackAddresses, 'pid'> {
  /** Where the addresses came from, for messages. */
  found: 'running stack' | 'defaults';
  dataDir: string;
  /** The access key the identity server's Admin* operations must be signed with, if its pool file is readable. */
  identityCredentials?: { accessKeyId: string; secretAccessKey: string };
}

/** The local stack's addresses as the CLIs should use them: your variables, the running stack, the defaults. */
export function localTarget(env: NodeJS.ProcessEnv = process.env): LocalTarget {
  const settings: LocalSettings = localSettings(env);
  const running = runningLocalStack(settings.dataDir);
  const url = (port: number) => `http://${settings.host}:${port}`;
  // A port variable you set names the address; otherwise the running stack's, then the default.
  const chosen = (variable: string, fromStack: string | undefined, fromSettings: string) =>
    env[variable] ? fromSettings : (fromStack ?? fromSettings);
  return {
    found: running ? 'running stack' : 'defaults',
    dataDir: settings.dataDir,
    baseUrl: chosen('PORT', running?.baseUrl, `${url(settings.apiPort)}/api/v1`),
    publicMediaBaseUrl: chosen('PORT', running?.publicMediaBaseUrl, `${url(settings.apiPort)}/media`),
    dynamodbEndpoint: env.DYNAMODB_ENDPOINT || chosen('DYNAMODB_PORT', running?.dynamodbEndpoint, url(settings.dynamodbPort)),
    s3Endpoint: env.S3_ENDPOINT || chosen('S3_PORT', running?.s3Endpoint, url(settings.s3Port)),
    tableName: env.TABLE_NAME || running?.tableName || settings.tableName,
    mediaBucket: env.MEDIA_BUCKET || running?.mediaBucket || settings.mediaBucket,
    region: env.AWS_REGION || running?.region || settings.region,
    ...identityOf(running, settings, env),
  };
}

/**
 * The identity server's address from the running stack, else its pool file and the default port;
 * its admin credentials from the pool file (readable by the stack's owner only).
 */
function identityOf(running: LocalStackAddresses | undefined, settings: LocalSettings, env: NodeJS.ProcessEnv) {
  const pool = readPool(settings.dataDir);
  const credentials = pool?.identityCredentials && { identityCredentials: pool.identityCredentials };
  if (running?.identityEndpoint && !env.IDENTITY_PORT) {
    return { identityEndpoint: running.identityEndpoint, userPoolId: running.userPoolId, userPoolClientId: running.userPoolClientId, ...credentials };
  }
  return pool ? { identityEndpoint: `http://${settings.host}:${settings.identityPort}`, ...pool } : {};
}

/** The access key of the identity server whose data is in `dataDir`, if its pool file can be read. */
export function identityAdminCredentials(dataDir: string): LocalTarget['identityCredentials'] {
  return readPool(dataDir)?.identityCredentials;
}

function readPool(dataDir: string): Pick<LocalTarget, 'userPoolId' | 'userPoolClientId' | 'identityCredentials'> | undefined {
  try {
    const { userPoolId, clientId, adminCredentials } = JSON.parse(readFileSync(path.join(dataDir, 'identity', 'user-pool.json'), 'utf8')) as {
      userPoolId?: unknown;
      clientId?: unknown;
      adminCredentials?: { accessKeyId?: unknown; secretAccessKey?: unknown };
    };
    if (typeof userPoolId !== 'string' || typeof clientId !== 'string') return undefined;
    const { accessKeyId, secretAccessKey } = adminCredentials ?? {};
    const credentials = typeof accessKeyId === 'string' && typeof secretAccessKey === 'string' ? { accessKeyId, secretAccessKey } : undefined;
    return { userPoolId, userPoolClientId: clientId, ...(credentials && { identityCredentials: credentials }) };
  } catch {
    return undefined;
  }
}

/** What to say when nothing answers at `address` (`what`: "DynamoDB Local"), naming the variables that would move it. */
export function notRunningHint(target: LocalTarget, what: string, address: string, variables: string): string {
  const from = target.found === 'running stack' ? `as recorded in ${addressFile(target.dataDir)}` : 'the default';
  return (
    `Nothing answers at ${address} (${what}, ${from}). Is the local stack running (npm start)? ` +
    `If it runs on other ports, set ${variables} as you gave them to npm start, or DATA_DIR to its data folder.`
  );
}
