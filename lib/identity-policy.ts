/**
 * The identity provider's rules, in one place: the Cognito user pool (lib/constructs/user-pool.ts)
 * is built with them and the local identity server (bin/local-stack/identity/) enforces them, so
 * a password or a token lifetime behaves the same on both.
 */
export const PASSWORD_POLICY = {
  minLength: 12,
  requireLowercase: true,
  requireUppercase: true,
  requireDigits: true,
  requireSymbols: true,
  /** Days an admin-set temporary password stays usable. */
  tempPasswordValidityDays: 3,
} as const;

/** Deliberate lifetimes: a short access token (what the API accepts), a month-long refresh. */
export const TOKEN_LIFETIMES = {
  accessTokenMinutes: 60,
  idTokenMinutes: 60,
  refreshTokenDays: 30,
} as const;

/** Cognito's symbol set for password policies. */
const SYMBOLS = /[\^$*.[\]{}()?"!@#%&/\\,><':;|_~`=+-]/;

/** What is wrong with a password under the policy, in Cognito's words; undefined when it passes. */
export function passwordProblem(password: string): string | undefined {
  const missing: string[] = [];
  if (password.length < PASSWORD_POLICY.minLength) missing.push(`Password not long enough (at least ${PASSWORD_POLICY.minLength} characters)`);
  if (PASSWORD_POLICY.requireLowercase && !/[a-z]/.test(password)) missing.push('Password must have lowercase characters');
  if (PASSWORD_POLICY.requireUppercase && !/[A-Z]/.test(password)) missing.push('Password must have uppercase characters');
  if (PASSWORD_POLICY.requireDigits && !/[0-9]/.test(password)) missing.push('Password must have numeric characters');
  if (PASSWORD_POLICY.requireSymbols && !SYMBOLS.test(password)) missing.push('Password must have symbol characters');
  return missing.length ? `Password did not conform with policy: ${missing.join('; ')}` : undefined;
}
