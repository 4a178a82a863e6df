import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from './args';
import { configPath } from './config';
import { runningLocalStack } from '../local-stack/discovery';
import { localSettings } from '../local-stack/settings';

/**
 * `vidgen login`: a signed-in account holder's session for the CLI, used when no API key is
 * given. It signs in with Cognito's API (USER_PASSWORD_AUTH), as the console does, at the
 * identity provider's endpoint: VIDGEN_IDENTITY_ENDPOINT and VIDGEN_CLIENT_ID (or
 * "identityEndpoint" and "clientId" in the config file), else the local stack's identity server.
 * The tokens are kept in session.json beside the config file, readable by the user alone, and
 * the access token is refreshed with the refresh token when it is about to expire.
 */
export interface StoredSession {
  email: string;
  identityEndpoint: string;
  clientId: string;
  accessToken: string;
  refreshToken: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

/** Refresh this long before the access token expires, so a request never carries a dying one. */
const REFRESH_MARGIN_MS = 60_000;

export function sessionPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(path.dirname(configPath(env)), 'session.json');
}

/** Where to sign in: the variables, the config file, then the running local stack. */
export function identitySettings(env: NodeJS.ProcessEnv = process.env): { identityEndpoint: string; clientId: string } {
  let saved: { identityEndpoint?: unknown; clientId?: unknown } = {};
  try {
    saved = JSON.parse(readFileSync(configPath(env), 'utf8')) as typeof saved;
  } catch {
    // no config file, or one loadConfig reports on
  }
  const local = runningLocalStack(localSettings(env).dataDir);
  const identityEndpoint = env.VIDGEN_IDENTITY_ENDPOINT?.trim() || (typeof saved.identityEndpoint === 'string' ? saved.identityEndpoint : undefined) || local?.identityEndpoint;
  const clientId = env.VIDGEN_CLIENT_ID?.trim() || (typeof saved.clientId === 'string' ? saved.clientId : undefined) || local?.userPoolClientId;
  if (!identityEndpoint || !clientId) {
    throw new UsageError(
      'No identity provider: set VIDGEN_IDENTITY_ENDPOINT (https://cognito-idp.<region>.amazonaws.com) and VIDGEN_CLIENT_ID (the UserPoolClientId output), or start the local stack.',
    );
  }
  return { identityEndpoint: identityEndpoint.replace(/\/+$/, ''), clientId };
}

/** Signs in and stores the session (0600). */
export async function login(email: string, password: string, env: NodeJS.ProcessEnv = process.env, now = Date.now()): Promise<StoredSession> {
  const settings = identitySettings(env);
  const result = await initiateAuth(settings.identityEndpoint, settings.clientId, 'USER_PASSWORD_AUTH', { USERNAME: email.trim(), PASSWORD: password });
  if (!result.RefreshToken) throw new Error('The identity provider answered without a refresh token.');
  const session: StoredSession = {
    email: email.trim(),
    ...settings,
    accessToken: result.AccessToken,
    refreshToken: result.RefreshToken,
    expiresAt: now + result.ExpiresIn * 1000,
  };
  save(session, env);
  return session;
}

export function logout(env: NodeJS.ProcessEnv = process.env): boolean {
  const file = sessionPath(env);
  const existed = readSession(env) !== undefined;
  rmSync(file, { force: true });
  return existed;
}

/** The stored session's access token, refreshed first when it is about to expire; undefined without a session. */
export async function sessionToken(env: NodeJS.ProcessEnv = process.env, now = Date.now()): Promise<string | undefined> {
  const session = readSession(env);
  if (!session) return undefined;
  if (session.expiresAt - REFRESH_MARGIN_MS > now) return session.accessToken;
  let result;
  try {
    result = await initiateAuth(session.identityEndpoint, session.clientId, 'REFRESH_TOKEN_AUTH', { REFRESH_TOKEN: session.refreshToken });
  } catch (error) {
    if (error instanceof IdentityError && error.type === 'NotAuthorizedException') {
      throw new UsageError(`The session of ${session.email} has ended (${error.message}). Sign in again: vidgen login --email ${session.email}`);
    }
    throw error;
  }
  save({ ...session, accessToken: result.AccessToken, expiresAt: now + result.ExpiresIn * 1000 }, env);
  return result.AccessToken;
}

export function readSession(env: NodeJS.ProcessEnv = process.env): StoredSession | undefined {
  try {
    const parsed = JSON.parse(readFileSync(sessionPath(env), 'utf8')) as Partial<StoredSession>;
    const complete = ['email', 'identityEndpoint', 'clientId', 'accessToken', 'refreshToken'].every((name) => typeof parsed[name as keyof StoredSession] === 'string');
    return complete && typeof parsed.expiresAt === 'number' ? (parsed as StoredSession) : undefined;
  } catch {
    return undefined;
  }
}

function save(session: StoredSession, env: NodeJS.ProcessEnv): void {
  const file = sessionPath(env);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify(session, null, 2)}\n`, { mode: 0o600 });
  // writeFileSync's mode applies only to a new file.
  chmodSync(file, 0o600);
}

export class IdentityError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/** Cognito's InitiateAuth over its JSON protocol (no SDK: the CLI stays light). */
async function initiateAuth(endpoint: string, clientId: string, flow: string, parameters: Record<string, string>) {
  const response = await fetch(`${endpoint}/`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-amz-json-1.1', 'X-Amz-Target': 'AWSCognitoIdentityProviderService.InitiateAuth' },
    body: JSON.stringify({ AuthFlow: flow, ClientId: clientId, AuthParameters: parameters }),
  });
  const body = (await response.json().catch(() => ({}))) as {
    __type?: string;
    message?: string;
    AuthenticationResult?: { AccessToken: string; RefreshToken?: string; ExpiresIn: number };
    ChallengeName?: string;
  };
  if (response.status !== 200) {
    const type = (body.__type ?? `HTTP ${response.status}`).split('#').pop()!;
    throw new IdentityError(type, body.message ?? type);
  }
  if (!body.AuthenticationResult) throw new IdentityError('ChallengeRequired', `Signing in needs more than a password (${body.ChallengeName ?? 'a challenge'}); use the console.`);
  return body.AuthenticationResult;
}
