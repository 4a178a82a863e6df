import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  AccountRecovery,
  FeaturePlan,
  Mfa,
  StandardThreatProtectionMode,
  UserPool,
  UserPoolClient,
  UserPoolClientIdentityProvider,
} from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import { PASSWORD_POLICY, TOKEN_LIFETIMES } from '../identity-policy';

export interface AccountHoldersProps {
  production: boolean;
}

/**
 * The account holders' identity provider: a Cognito user pool whose username is the email
 * (self sign-up, the email verified with a code, password reset by email, the policy in
 * lib/identity-policy.ts), and one public app client for the console, a browser app that keeps
 * no secret and signs in with Cognito's API (USER_PASSWORD_AUTH or SRP, refresh). The API
 * accepts this client's access tokens (functions/adapters/identity/cognito-identity.ts). The
 * local identity server (bin/local-stack/identity/) speaks the same API with the same rules.
 */
export class AccountHolders extends Construct {
  readonly userPool: UserPool;
  readonly client: UserPoolClient;

  constructor(scope: Construct, id: string, props: AccountHoldersProps) {
    super(scope, id);
    this.userPool = new UserPool(this, 'UserPool', {
      signInAliases: { email: true },
      signInCaseSensitive: false,
      selfSignUpEnabled: true,
      autoVerify: { email: true },
      // A changed email stays unverified (and the old one in use) until its code is entered.
      keepOriginal: { email: true },
      standardAttributes: { email: { required: true, mutable: true } },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      passwordPolicy: {
        minLength: PASSWORD_POLICY.minLength,
        requireLowercase: PASSWORD_POLICY.requireLowercase,
        requireUppercase: PASSWORD_POLICY.requireUppercase,
        requireDigits: PASSWORD_POLICY.requireDigits,
        requireSymbols: PASSWORD_POLICY.requireSymbols,
        tempPasswordValidity: Duration.days(PASSWORD_POLICY.tempPasswordValidityDays),
      },
      // Holders may add an authenticator app; SMS is off (cost, SIM swapping).
      mfa: Mfa.OPTIONAL,
      mfaSecondFactor: { otp: true, sms: false },
      // Production: the Plus plan's threat protection blocks compromised credentials and risky
      // sign-ins; dev has no real holders and spares the per-user cost.
      featurePlan: props.production ? FeaturePlan.PLUS : FeaturePlan.ESSENTIALS,
      ...(props.production && { standardThreatProtectionMode: StandardThreatProtectionMode.FULL_FUNCTION }),
      deletionProtection: props.production,
      removalPolicy: props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });

    this.client = this.userPool.addClient('ConsoleClient', {
      // A browser app cannot keep a secret.
      generateSecret: false,
      authFlows: { userPassword: true, userSrp: true },
      // The console signs in with Cognito's API, not the hosted pages.
      disableOAuth: true,
      supportedIdentityProviders: [UserPoolClientIdentityProvider.COGNITO],
      // "Incorrect username or password" and a sent-looking reset for unknown emails alike.
      preventUserExistenceErrors: true,
      accessTokenValidity: Duration.minutes(TOKEN_LIFETIMES.accessTokenMinutes),
      idTokenValidity: Duration.minutes(TOKEN_LIFETIMES.idTokenMinutes),
      refreshTokenValidity: Duration.days(TOKEN_LIFETIMES.refreshTokenDays),
      enableTokenRevocation: true,
    });

    Validations.of(this.userPool).acknowledge({
      id: 'AwsSolutions-COG2',
      reason: 'MFA is optional (an authenticator app), not required: self-service sign-up for API customers; the strong password policy, verified emails and (in production) threat protection stand in.',
    });
    if (!props.production) {
      Validations.of(this.userPool).acknowledge({
        id: 'AwsSolutions-COG8',
        reason: 'A dev stage has no real account holders: the Essentials plan, without the Plus plan\'s per-user threat protection cost; production uses Plus with threat protection on.',
      });
    }
  }
}
