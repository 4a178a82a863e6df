import type { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { openHolderAccount } from '#domain/accounts/authenticate-session';
import { NotFoundError, ValidationError } from '#domain/shared/errors';
import type { Holder } from '#domain/accounts/holder';
import type { Role } from '#domain/accounts/roles';
import type { HolderStore } from '#domain/accounts/ports';
import { passwordProblem } from '#lib/identity-policy';
import type { LocalTarget } from '../local-stack/discovery';
import { UsageError } from './errors';

/**
 * Account holders, through the identity provider's own API: the Cognito user pool with --aws
 * (USER_POOL_ID, USER_POOL_CLIENT_ID, AWS_REGION, your AWS credentials), the local identity
 * server otherwise. The same calls on both; only the endpoint differs.
 */
export interface IdentityTarget {
  client: CognitoIdentityProviderClient;
  sdk: typeof import('@aws-sdk/client-cognito-identity-provider');
  userPoolId: string;
  clientId: string;
}

/** The SDK is loaded by the user commands only: the other commands start as fast as before. */
export async function identityTarget(local: LocalTarget | undefined, env: NodeJS.ProcessEnv = process.env): Promise<IdentityTarget> {
  const userPoolId = env.USER_POOL_ID || local?.userPoolId;
  const clientId = env.USER_POOL_CLIENT_ID || local?.userPoolClientId;
  const endpoint = env.IDENTITY_ENDPOINT || local?.identityEndpoint;
  if (!userPoolId || !clientId || (local && !endpoint)) {
    throw new UsageError(
      local
        ? 'No local identity server found: start the local stack (npm start) first, or set IDENTITY_ENDPOINT, USER_POOL_ID and USER_POOL_CLIENT_ID.'
        : '--aws needs USER_POOL_ID and USER_POOL_CLIENT_ID (the stateful stack\'s outputs) and AWS_REGION.',
    );
  }
  const sdk = await import('@aws-sdk/client-cognito-identity-provider');
  const client = new sdk.CognitoIdentityProviderClient({
    region: local ? local.region : (env.AWS_REGION ?? ''),
    ...(local && {
      endpoint,
      // The key the local stack made for its admin operations, never a developer's AWS profile.
      // Asked for only by operations that are signed (Admin*): sign-in needs none.
      credentials: async () => {
        if (local.identityCredentials) return local.identityCredentials;
        throw new UsageError(
          `No credentials for the local identity server: its pool file under ${local.dataDir}/identity/ could not be read. ` +
            'Run this as the user who runs npm start, with the same DATA_DIR.',
        );
      },
    }),
  });
  return { client, sdk, userPoolId, clientId };
}

export interface CreatedUser {
  holder: Holder;
  createdAccount: boolean;
}

/**
 * A verified holder with a permanent password, attached to `accountId` or to a new account.
 * Refused before anything is made for a password outside the pool's policy or an unknown
 * account; the pool's user is deleted again if the holder cannot be recorded.
 */
export async function createUser(
  target: IdentityTarget,
  stores: { holders: HolderStore; accounts: { get(id: string): Promise<unknown> }; clock: () => Date },
  input: { email: string; password: string; accountId?: string; role?: Role; signupCredits: number },
): Promise<CreatedUser> {
  const problem = passwordProblem(input.password);
  if (problem) throw new ValidationError(`--password: ${problem}.`, 'password');
  if (input.accountId && !(await stores.accounts.get(input.accountId))) throw new ValidationError(`--account: no account ${input.accountId}.`, 'account');

  const email = input.email.trim().toLowerCase();
  const created = await target.client.send(
    new target.sdk.AdminCreateUserCommand({
      UserPoolId: target.userPoolId,
      Username: email,
      UserAttributes: [
        { Name: 'email', Value: email },
        { Name: 'email_verified', Value: 'true' },
      ],
      MessageAction: 'SUPPRESS',
    }),
  );
  const holderId = created.User?.Attributes?.find((attribute) => attribute.Name === 'sub')?.Value;
  try {
    if (!holderId) throw new Error('The identity provider created the user without a sub.');
    await target.client.send(new target.sdk.AdminSetUserPasswordCommand({ UserPoolId: target.userPoolId, Username: email, Password: input.password, Permanent: true }));
    if (input.accountId) {
      const holder: Holder = { holderId, accountId: input.accountId, email, createdAt: stores.clock().toISOString() };
      await stores.holders.attach(holder, input.role ?? 'owner');
      return { holder, createdAccount: false };
    }
    const holder = await openHolderAccount({ holders: stores.holders, signupCredits: input.signupCredits, clock: stores.clock }, { holderId, email, emailVerified: true });
    return { holder, createdAccount: true };
  } catch (error) {
    await target.client.send(new target.sdk.AdminDeleteUserCommand({ UserPoolId: target.userPoolId, Username: email })).catch(() => undefined);
    throw error;
  }
}

/** The holder id (the pool's `sub`) of the user whose username is `email` (both sign-up paths use the email). */
export async function holderIdOf(target: IdentityTarget, email: string): Promise<string> {
  try {
    const user = await target.client.send(new target.sdk.AdminGetUserCommand({ UserPoolId: target.userPoolId, Username: email }));
    const sub = user.UserAttributes?.find((attribute) => attribute.Name === 'sub')?.Value;
    if (!sub) throw new Error(`The identity provider has ${email} without a sub.`);
    return sub;
  } catch (error) {
    if ((error as { name?: string }).name === 'UserNotFoundException') throw new NotFoundError(`No user ${email} in the identity provider.`);
    throw error;
  }
}

/** Signs in with USER_PASSWORD_AUTH, as the console does. */
export async function signIn(target: IdentityTarget, email: string, password: string): Promise<{ accessToken: string; expiresIn: number }> {
  const answer = await target.client.send(
    new target.sdk.InitiateAuthCommand({ ClientId: target.clientId, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: email.trim(), PASSWORD: password } }),
  );
  const result = answer.AuthenticationResult;
  if (!result?.AccessToken) throw new Error(`Sign-in needs more than a password (challenge ${answer.ChallengeName ?? 'unknown'}).`);
  return { accessToken: result.AccessToken, expiresIn: result.ExpiresIn ?? 0 };
}
