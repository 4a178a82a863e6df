import { createHash, generateKeyPairSync, randomBytes, randomUUID, type JsonWebKey as JWK } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AccessKey } from './sigv4';

/**
 * The local identity server's data: one user pool with one app client, its signing key and its
 * users, kept as one JSON file in the data folder (written whole after each change, through a
 * rename, so a crash never leaves half a file). Passwords are stored as scrypt hashes, refresh
 * tokens as SHA-256 hashes. Everything runs on one event loop, so a change is one synchronous step.
 */
export type UserStatus = 'UNCONFIRMED' | 'CONFIRMED' | 'FORCE_CHANGE_PASSWORD';

export interface PendingCode {
  code: string;
  purpose: 'signup' | 'reset';
  /** Epoch milliseconds. */
  expiresAt: number;
}

/** A signed-in session: every token issued since one sign-in shares its `origin_jti`. */
export interface UserSession {
  originJti: string;
  refreshTokenHash: string;
  /** Epoch milliseconds: when its refresh token stops working. */
  expiresAt: number;
}

export interface StoredUser {
  /** Also the Cognito username: in a pool whose username is the email, the username is the sub. */
  sub: string;
  /** Lower case: sign-in is not case sensitive, as in the deployed pool. */
  email: string;
  emailVerified: boolean;
  status: UserStatus;
  enabled: boolean;
  passwordHash: string;
  createdAt: string;
  updatedAt: string;
  pendingCode?: PendingCode;
  sessions: UserSession[];
}

interface PoolFile {
  userPoolId: string;
  clientId: string;
  /** RSA private key (JWK) and its key id, made on the first start. */
  signingKey: JWK & { kid: string };
  /**
   * The one access key the administrative operations accept (IAM credentials on AWS), made on the
   * first start. This file is readable by its owner only: whoever can read it administers the pool.
   */
  adminCredentials: AccessKey;
  users: StoredUser[];
}

export class PoolStore {
  private readonly data: PoolFile;

  private constructor(
    private readonly file: string,
    data: PoolFile,
  ) {
    this.data = data;
  }

  /** Opens the pool in `dir`, creating its ids and key on the first start. */
  static open(dir: string, region: string): PoolStore {
    const file = path.join(dir, 'user-pool.json');
    if (existsSync(file)) {
      const data = JSON.parse(readFileSync(file, 'utf8')) as Omit<PoolFile, 'adminCredentials'> & Partial<Pick<PoolFile, 'adminCredentials'>>;
      const store = new PoolStore(file, { ...data, adminCredentials: data.adminCredentials ?? newAccessKey() });
      // A pool made before admin operations needed credentials gets its key now.
      if (!data.adminCredentials) store.save();
      return store;
    }
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const store = new PoolStore(file, {
      // Cognito's shapes: <region>_<9 alphanumerics>, and 26 lower-case alphanumerics.
      userPoolId: `${region}_${alphanumeric(9)}`,
      clientId: alphanumeric(26).toLowerCase(),
      signingKey: { ...privateKey.export({ format: 'jwk' }), kid: randomUUID() },
      adminCredentials: newAccessKey(),
      users: [],
    });
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    store.save();
    return store;
  }

  get adminCredentials(): AccessKey {
    return this.data.adminCredentials;
  }

  get userPoolId(): string {
    return this.data.userPoolId;
  }

  get clientId(): string {
    return this.data.clientId;
  }

  get signingKey(): JWK & { kid: string } {
    return this.data.signingKey;
  }

  /** By email (any case) or by sub, as Cognito accepts either for a pool whose username is the email. */
  find(username: string): StoredUser | undefined {
    const wanted = username.trim().toLowerCase();
    return this.data.users.find((user) => user.email === wanted || user.sub === wanted);
  }

  add(user: StoredUser): void {
    this.data.users.push(user);
    this.save();
  }

  remove(sub: string): void {
    this.data.users = this.data.users.filter((user) => user.sub !== sub);
    this.save();
  }

  /** Applies `change` to the user and saves; drops sessions whose refresh token has expired. */
  update(user: StoredUser, change: (user: StoredUser) => void, now = Date.now()): void {
    change(user);
    user.sessions = user.sessions.filter((session) => session.expiresAt > now);
    user.updatedAt = new Date(now).toISOString();
    this.save();
  }

  findSession(refreshToken: string): { user: StoredUser; session: UserSession } | undefined {
    const hash = sha256(refreshToken);
    for (const user of this.data.users) {
      const session = user.sessions.find((candidate) => candidate.refreshTokenHash === hash);
      if (session) return { user, session };
    }
    return undefined;
  }

  private save(): void {
    const temporary = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(this.data, null, 2)}\n`, { mode: 0o600 });
    renameSync(temporary, this.file);
  }
}

export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

/** An IAM-shaped access key: AKIA and 16 upper-case alphanumerics, and a 40-character secret. */
function newAccessKey(): AccessKey {
  return { accessKeyId: `AKIA${alphanumeric(16).toUpperCase()}`, secretAccessKey: randomBytes(30).toString('base64') };
}

function alphanumeric(length: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(length)].map((byte) => alphabet[byte % alphabet.length]).join('');
}
