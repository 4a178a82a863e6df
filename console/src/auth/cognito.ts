/**
 * The Amazon Cognito user pool API the console signs in with: its JSON protocol over fetch (POST
 * to the endpoint, `X-Amz-Target: AWSCognitoIdentityProviderService.<Operation>`). The same calls
 * reach Cognito on AWS and the local stack's identity server; no SDK, so the sign-in pages stay small.
 */
export interface IdentitySettings {
  endpoint: string;
  clientId: string;
}

export interface Tokens {
  accessToken: string;
  /** Seconds the access token is valid from now. */
  expiresIn: number;
  /** Absent on a refresh: the refresh token stays the same. */
  refreshToken?: string;
}

/** A refusal of the identity provider: Cognito's exception name (`NotAuthorizedException`) and message. */
export class IdentityError extends Error {
  override readonly name = 'IdentityError';
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

async function call<T>(settings: IdentitySettings, operation: string, body: Record<string, unknown>): Promise<T> {
  let response: Response;
  try {
    response = await fetch(settings.endpoint.endsWith('/') ? settings.endpoint : `${settings.endpoint}/`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-amz-json-1.1',
        'X-Amz-Target': `AWSCognitoIdentityProviderService.${operation}`,
      },
      body: JSON.stringify({ ClientId: settings.clientId, ...body }),
    });
  } catch {
    throw new IdentityError('NetworkError', 'The sign-in service could not be reached. Check your connection and try again.');
  }
  const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok) {
    // Cognito names the exception in __type, sometimes prefixed with its namespace (`…#NotAuthorizedException`).
    const type = String(answer.__type ?? response.headers.get('x-amzn-ErrorType') ?? 'UnknownError').split('#').pop()!.split(':')[0]!;
    throw new IdentityError(type, String(answer.message ?? answer.Message ?? `HTTP ${response.status}`));
  }
  return answer as T;
}

interface AuthenticationResult {
  AuthenticationResult?: { AccessToken: string; ExpiresIn: number; RefreshToken?: string };
  ChallengeName?: string;
}

function tokensOf(answer: AuthenticationResult): Tokens {
  const result = answer.AuthenticationResult;
  if (!result) {
    throw new IdentityError(answer.ChallengeName ?? 'ChallengeRequired', `Sign-in needs a step this console does not support (${answer.ChallengeName ?? 'unknown'}).`);
  }
  return { accessToken: result.AccessToken, expiresIn: result.ExpiresIn, ...(result.RefreshToken && { refreshToken: result.RefreshToken }) };
}

export const cognito = {
  signUp: (s: IdentitySettings, email: string, password: string) =>
    call<{ UserConfirmed: boolean }>(s, 'SignUp', { Username: email, Password: password, UserAttributes: [{ Name: 'email', Value: email }] }),
  confirmSignUp: (s: IdentitySettings, email: string, code: string) => call<object>(s, 'ConfirmSignUp', { Username: email, ConfirmationCode: code }),
  resendCode: (s: IdentitySettings, email: string) => call<object>(s, 'ResendConfirmationCode', { Username: email }),
  signIn: async (s: IdentitySettings, email: string, password: string) =>
    tokensOf(await call<AuthenticationResult>(s, 'InitiateAuth', { AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: email, PASSWORD: password } })),
  refresh: async (s: IdentitySettings, refreshToken: string) =>
    tokensOf(await call<AuthenticationResult>(s, 'InitiateAuth', { AuthFlow: 'REFRESH_TOKEN_AUTH', AuthParameters: { REFRESH_TOKEN: refreshToken } })),
  forgotPassword: (s: IdentitySettings, email: string) => call<object>(s, 'ForgotPassword', { Username: email }),
  confirmForgotPassword: (s: IdentitySettings, email: string, code: string, password: string) =>
    call<object>(s, 'ConfirmForgotPassword', { Username: email, ConfirmationCode: code, Password: password }),
  // GlobalSignOut takes no ClientId on Cognito; the extra field is ignored there and here.
  globalSignOut: (s: IdentitySettings, accessToken: string) => call<object>(s, 'GlobalSignOut', { AccessToken: accessToken }),
};

/** Cognito's refusals in words a person can act on. */
export function describeIdentityError(error: unknown): string {
  if (!(error instanceof IdentityError)) return error instanceof Error ? error.message : String(error);
  switch (error.type) {
    case 'NotAuthorizedException':
      return 'The email or password is not right. Check both, or reset your password.';
    case 'UserNotConfirmedException':
      return 'This email is not verified yet. Enter the code we sent you (or ask for a new one).';
    case 'UsernameExistsException':
      return 'An account with this email already exists. Sign in, or reset your password.';
    case 'CodeMismatchException':
      return 'That code is not right. Check the latest code we sent you.';
    case 'ExpiredCodeException':
      return 'That code has expired. Ask for a new one.';
    case 'InvalidPasswordException':
      return `The password is too weak: ${error.message}`;
    case 'InvalidParameterException':
      return error.message;
    case 'LimitExceededException':
    case 'TooManyRequestsException':
    case 'TooManyFailedAttemptsException':
      return 'Too many attempts. Wait a few minutes, then try again.';
    case 'UserNotFoundException':
      return 'No account uses this email.';
    default:
      return error.message;
  }
}
