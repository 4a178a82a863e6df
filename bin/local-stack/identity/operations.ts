import { randomBytes, randomInt, randomUUID, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { passwordProblem, TOKEN_LIFETIMES } from '#lib/identity-policy';
import { Lockout } from './lockout';
import { sha256, type PoolStore, type StoredUser } from './pool-store';
import { readOwnToken, type TokenSigner } from './tokens';

/**
 * The Amazon Cognito user pool operations the console, the admin CLI and the API use, with
 * Cognito's request and response shapes and error types. Like the deployed pool: the username
 * is the email, sign-in needs a confirmed (verified) email, user existence is not revealed
 * (the app client's PreventUserExistenceErrors: an unknown user signs in as a wrong password
 * does, a code for one is "sent", a code for one is wrong), and failed passwords and codes lock
 * the name out for a while (lockout.ts). The Admin* operations are checked by the server
 * (IAM credentials: server.ts).
 */
export class CognitoError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/** Where a code the deployed pool would email goes (the local stack's log). */
export type CodeSink = (delivery: { email: string; code: string; purpose: 'signup' | 'reset' }) => void;

type Params = Record<string, unknown>;
type Operation = (params: Params) => Promise<object>;

const CODE_LIFETIME_MS = { signup: 24 * 3600_000, reset: 3600_000 } as const;
const INCORRECT_PASSWORD = () => new CognitoError('NotAuthorizedException', 'Incorrect username or password.');
const WRONG_CODE = () => new CognitoError('CodeMismatchException', 'Invalid verification code provided, please try again.');
const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, length: number) => Promise<Buffer>;

export function userPoolOperations(pool: PoolStore, tokens: TokenSigner, sendCode: CodeSink, lockout = new Lockout()): Record<string, Operation> {
  const client = (params: Params) => {
    if (params.ClientId !== pool.clientId) throw new CognitoError('ResourceNotFoundException', `User pool client ${String(params.ClientId)} does not exist.`);
  };
  const userPool = (params: Params) => {
    if (params.UserPoolId !== pool.userPoolId) throw new CognitoError('ResourceNotFoundException', `User pool ${String(params.UserPoolId)} does not exist.`);
  };
  const existing = (params: Params): StoredUser => {
    const user = pool.find(text(params, 'Username'));
    if (!user) throw new CognitoError('UserNotFoundException', 'User does not exist.');
    return user;
  };
  const issueCode = (user: StoredUser, purpose: 'signup' | 'reset') => {
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    pool.update(user, (it) => (it.pendingCode = { code, purpose, expiresAt: Date.now() + CODE_LIFETIME_MS[purpose] }));
    sendCode({ email: user.email, code, purpose });
    return delivery(user.email);
  };
  /** What failures of `username` count against: the user's sub when there is one, else the name as given. */
  const lockName = (kind: 'password' | 'code', username: string, user: StoredUser | undefined) => `${kind}:${user?.sub ?? username.trim().toLowerCase()}`;
  /**
   * Checks a code of `purpose` for `user`, if there is one: a missing user, a user with no such
   * code pending (already confirmed, say) and a wrong code get one answer, and count as failures.
   */
  const useCode = (username: string, user: StoredUser | undefined, params: Params, purpose: 'signup' | 'reset'): StoredUser => {
    const name = lockName('code', username, user);
    if (lockout.isLocked(name)) throw new CognitoError('LimitExceededException', 'Attempt limit exceeded, please try after some time.');
    const pending = user?.pendingCode;
    const given = text(params, 'ConfirmationCode');
    if (!user || !pending || pending.purpose !== purpose || !sameText(pending.code, given)) {
      lockout.failed(name);
      throw WRONG_CODE();
    }
    lockout.succeeded(name);
    if (pending.expiresAt <= Date.now()) throw new CognitoError('ExpiredCodeException', 'Invalid code provided, please request a code again.');
    return user;
  };
  /** Checks a password, under the lockout; an unknown user is answered as a wrong password. */
  const checkPassword = async (username: string, user: StoredUser | undefined, password: string) => {
    const name = lockName('password', username, user);
    if (lockout.isLocked(name)) throw new CognitoError('NotAuthorizedException', 'Password attempts exceeded');
    // Counted as failed before the (slow) hash is compared, so a burst of concurrent guesses
    // cannot all pass the check above; a right password then clears it.
    lockout.failed(name);
    const matches = user ? await passwordMatches(password, user.passwordHash) : await passwordMatches('', DUMMY_HASH);
    if (!user || !matches) throw INCORRECT_PASSWORD();
    lockout.succeeded(name);
  };
  /** The user a valid, unrevoked access token of this pool speaks for. */
  const holderOf = (params: Params): StoredUser => {
    const claims = readOwnToken(text(params, 'AccessToken'), tokens.jwks());
    const user = claims && typeof claims.sub === 'string' ? pool.find(claims.sub) : undefined;
    const live =
      claims &&
      claims.token_use === 'access' &&
      claims.iss === tokens.issuer &&
      typeof claims.exp === 'number' &&
      claims.exp * 1000 > Date.now() &&
      user?.enabled &&
      user.sessions.some((session) => session.originJti === claims.origin_jti);
    if (!live) throw new CognitoError('NotAuthorizedException', 'Invalid Access Token');
    return user!;
  };
  const signIn = (user: StoredUser, clientId: string) => {
    const originJti = randomUUID();
    const refreshToken = `local.${randomBytes(48).toString('base64url')}`;
    const now = Date.now();
    pool.update(user, (it) =>
      it.sessions.push({ originJti, refreshTokenHash: sha256(refreshToken), expiresAt: now + TOKEN_LIFETIMES.refreshTokenDays * 86_400_000 }),
    );
    const authTime = Math.floor(now / 1000);
    return authenticationResult(tokens, user, clientId, originJti, authTime, refreshToken);
  };

  return {
    SignUp: async (params) => {
      client(params);
      const email = emailOf(params.UserAttributes) ?? text(params, 'Username');
      if (!isEmail(email) || text(params, 'Username').toLowerCase() !== email.toLowerCase()) {
        throw new CognitoError('InvalidParameterException', 'Username should be an email.');
      }
      const passwordHash = await hashPassword(checkedPassword(params, 'Password'));
      if (pool.find(email)) throw new CognitoError('UsernameExistsException', 'An account with the given email already exists.');
      const user = newUser(email, passwordHash, 'UNCONFIRMED', false);
      pool.add(user);
      return { UserConfirmed: false, UserSub: user.sub, CodeDeliveryDetails: issueCode(user, 'signup') };
    },
    ConfirmSignUp: async (params) => {
      client(params);
      const username = text(params, 'Username');
      const user = useCode(username, pool.find(username), params, 'signup');
      pool.update(user, (it) => {
        it.status = 'CONFIRMED';
        it.emailVerified = true;
        delete it.pendingCode;
      });
      return {};
    },
    ResendConfirmationCode: async (params) => {
      client(params);
      const user = pool.find(text(params, 'Username'));
      // Unknown, already confirmed or disabled: a code is "sent" all the same (nothing is).
      if (!user || user.status !== 'UNCONFIRMED' || !user.enabled) return { CodeDeliveryDetails: delivery(text(params, 'Username')) };
      return { CodeDeliveryDetails: issueCode(user, 'signup') };
    },
    InitiateAuth: async (params) => {
      client(params);
      const auth = (params.AuthParameters ?? {}) as Record<string, string>;
      if (params.AuthFlow === 'REFRESH_TOKEN_AUTH' || params.AuthFlow === 'REFRESH_TOKEN') {
        const found = pool.findSession(String(auth.REFRESH_TOKEN ?? ''));
        if (!found || found.session.expiresAt <= Date.now() || !found.user.enabled) {
          throw new CognitoError('NotAuthorizedException', 'Invalid Refresh Token');
        }
        const { user, session } = found;
        const authTime = Math.floor(Date.now() / 1000);
        return authenticationResult(tokens, user, pool.clientId, session.originJti, authTime);
      }
      if (params.AuthFlow !== 'USER_PASSWORD_AUTH') {
        throw new CognitoError('InvalidParameterException', `AuthFlow ${String(params.AuthFlow)} is not supported by the local identity server (USER_PASSWORD_AUTH, REFRESH_TOKEN_AUTH).`);
      }
      const username = String(auth.USERNAME ?? '');
      const user = pool.find(username);
      await checkPassword(username, user, String(auth.PASSWORD ?? ''));
      if (!user) throw INCORRECT_PASSWORD();
      if (!user.enabled) throw new CognitoError('NotAuthorizedException', 'User is disabled.');
      if (user.status === 'UNCONFIRMED') throw new CognitoError('UserNotConfirmedException', 'User is not confirmed.');
      if (user.status === 'FORCE_CHANGE_PASSWORD') {
        throw new CognitoError('NotAuthorizedException', 'The local identity server does not run the NEW_PASSWORD_REQUIRED challenge: set a permanent password (AdminSetUserPassword).');
      }
      return signIn(user, pool.clientId);
    },
    ForgotPassword: async (params) => {
      client(params);
      const user = pool.find(text(params, 'Username'));
      // Same answer for an unknown user: the pool prevents user existence errors.
      if (!user || !user.enabled) return { CodeDeliveryDetails: delivery(text(params, 'Username')) };
      return { CodeDeliveryDetails: issueCode(user, 'reset') };
    },
    ConfirmForgotPassword: async (params) => {
      client(params);
      const username = text(params, 'Username');
      const user = useCode(username, pool.find(username), params, 'reset');
      const passwordHash = await hashPassword(checkedPassword(params, 'Password'));
      pool.update(user, (it) => {
        it.passwordHash = passwordHash;
        // A reset proves the email, as on Cognito.
        if (it.status === 'UNCONFIRMED') it.status = 'CONFIRMED';
        it.emailVerified = true;
        delete it.pendingCode;
      });
      return {};
    },
    GetUser: async (params) => {
      const user = holderOf(params);
      return { Username: user.sub, UserAttributes: attributes(user) };
    },
    ChangePassword: async (params) => {
      const user = holderOf(params);
      await checkPassword(user.sub, user, text(params, 'PreviousPassword'));
      const passwordHash = await hashPassword(checkedPassword(params, 'ProposedPassword'));
      pool.update(user, (it) => (it.passwordHash = passwordHash));
      return {};
    },
    GlobalSignOut: async (params) => {
      const user = holderOf(params);
      pool.update(user, (it) => (it.sessions = []));
      return {};
    },
    AdminCreateUser: async (params) => {
      userPool(params);
      const email = emailOf(params.UserAttributes) ?? text(params, 'Username');
      if (!isEmail(email)) throw new CognitoError('InvalidParameterException', 'Username should be an email.');
      if (pool.find(email)) throw new CognitoError('UsernameExistsException', 'User account already exists.');
      const temporary = typeof params.TemporaryPassword === 'string' ? params.TemporaryPassword : `Tmp-${randomBytes(12).toString('base64url')}1a!`;
      const verified = attributeOf(params.UserAttributes, 'email_verified') === 'true';
      const user = newUser(email, await hashPassword(temporary), 'FORCE_CHANGE_PASSWORD', verified);
      pool.add(user);
      return { User: userView(user) };
    },
    AdminSetUserPassword: async (params) => {
      userPool(params);
      const user = existing(params);
      const passwordHash = await hashPassword(checkedPassword(params, 'Password'));
      pool.update(user, (it) => {
        it.passwordHash = passwordHash;
        it.status = params.Permanent === true ? 'CONFIRMED' : 'FORCE_CHANGE_PASSWORD';
      });
      return {};
    },
    AdminConfirmSignUp: async (params) => {
      userPool(params);
      const user = existing(params);
      if (user.status !== 'UNCONFIRMED') throw new CognitoError('NotAuthorizedException', `User cannot be confirmed. Current status is ${user.status}`);
      pool.update(user, (it) => {
        it.status = 'CONFIRMED';
        delete it.pendingCode;
      });
      return {};
    },
    AdminGetUser: async (params) => {
      userPool(params);
      const { Attributes, ...rest } = userView(existing(params));
      return { ...rest, UserAttributes: Attributes };
    },
    AdminDeleteUser: async (params) => {
      userPool(params);
      pool.remove(existing(params).sub);
      return {};
    },
    AdminDisableUser: async (params) => {
      userPool(params);
      pool.update(existing(params), (it) => (it.enabled = false));
      return {};
    },
    AdminEnableUser: async (params) => {
      userPool(params);
      pool.update(existing(params), (it) => (it.enabled = true));
      return {};
    },
    AdminUserGlobalSignOut: async (params) => {
      userPool(params);
      pool.update(existing(params), (it) => (it.sessions = []));
      return {};
    },
  };
}

function authenticationResult(tokens: TokenSigner, user: StoredUser, clientId: string, originJti: string, authTime: number, refreshToken?: string) {
  return {
    ChallengeParameters: {},
    AuthenticationResult: {
      AccessToken: tokens.accessToken(user, clientId, originJti, authTime),
      ExpiresIn: TOKEN_LIFETIMES.accessTokenMinutes * 60,
      TokenType: 'Bearer',
      IdToken: tokens.idToken(user, clientId, originJti, authTime),
      // A refresh answers without a new refresh token, as Cognito does.
      ...(refreshToken && { RefreshToken: refreshToken }),
    },
  };
}

function newUser(email: string, passwordHash: string, status: StoredUser['status'], emailVerified: boolean): StoredUser {
  const now = new Date().toISOString();
  return { sub: randomUUID(), email: email.toLowerCase(), emailVerified, status, enabled: true, passwordHash, createdAt: now, updatedAt: now, sessions: [] };
}

function attributes(user: StoredUser) {
  return [
    { Name: 'sub', Value: user.sub },
    { Name: 'email', Value: user.email },
    { Name: 'email_verified', Value: String(user.emailVerified) },
  ];
}

function userView(user: StoredUser) {
  return {
    Username: user.sub,
    Attributes: attributes(user),
    UserCreateDate: Date.parse(user.createdAt) / 1000,
    UserLastModifiedDate: Date.parse(user.updatedAt) / 1000,
    Enabled: user.enabled,
    UserStatus: user.status,
  };
}

/** Cognito masks the address it sent a code to: a***@e***. */
function delivery(email: string) {
  const [name = '', domain = ''] = email.toLowerCase().split('@');
  return { Destination: `${name.slice(0, 1)}***@${domain.slice(0, 1)}***`, DeliveryMedium: 'EMAIL', AttributeName: 'email' };
}

function text(params: Params, name: string): string {
  const value = params[name];
  if (typeof value !== 'string' || value === '') throw new CognitoError('InvalidParameterException', `Missing required parameter ${name}`);
  return value;
}

function attributeOf(list: unknown, name: string): string | undefined {
  if (!Array.isArray(list)) return undefined;
  const found = (list as Array<{ Name?: unknown; Value?: unknown }>).find((attribute) => attribute.Name === name);
  return typeof found?.Value === 'string' ? found.Value : undefined;
}

const emailOf = (list: unknown) => attributeOf(list, 'email');
const isEmail = (value: string) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value) && value.length <= 254;

function checkedPassword(params: Params, name: string): string {
  const password = text(params, name);
  const problem = passwordProblem(password);
  if (problem) throw new CognitoError('InvalidPasswordException', problem);
  return password;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** scrypt with a per-password salt: `scrypt$<salt>$<hash>`, base64url. */
async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(password, salt, 32);
  return `scrypt$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

async function passwordMatches(password: string, stored: string): Promise<boolean> {
  const [, salt = '', hash = ''] = stored.split('$');
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64url'), 32);
  return sameText(actual.toString('base64url'), hash);
}

/** Compared against for an unknown user, so its answer takes as long as a wrong password's. */
const DUMMY_HASH = `scrypt$${Buffer.alloc(16).toString('base64url')}$${Buffer.alloc(32).toString('base64url')}`;
