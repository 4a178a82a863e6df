import { BillingSettingsError, parseCatalogue, STRIPE_SECRETS } from '#adapters/stripe/settings';
import { BILLING } from '#config/billing';
import { PROVIDERS } from '#config/providers';
import { CIRCUIT, GATEWAY, IDENTITY, LIFECYCLE, SIM_DELAY } from '#config/service';
import type { ValuesOf } from '#config/setting';
import type { SomeProviderSettings } from '#providers/provider-module';
import { parseProviderRoutes, routedProviders } from '#providers/route-settings';
import { PROVIDER_SETTINGS_LIST, providerSettings as settingsOf } from '#providers/settings-registry';
import { type ContextReader, DEPLOY, DeploySettingsError, domainSettings, readContext, readContextGroup, secretSettings, type Stage } from './settings';

export { DeploySettingsError, LOG_RETENTION_DAYS, STAGES, type ContextReader, type Stage } from './settings';

/**
 * Everything a deployment can vary, read once from CDK context (`cdk.json` defaults, overridden
 * on the command line with `-c key=value`). Values are checked here, so a typo in a deploy
 * command stops `cdk synth` with the key's name instead of producing a broken stack.
 * docs/operations.md lists the keys for operators.
 */
export interface CustomDomain {
  domainName: string;
  /** ACM certificate for `domainName` (us-east-1 for the CDN, the stack's region for the API). */
  certificateArn: string;
}

/** Where a provider's secret lives. Never its value: the template must not contain it. */
export type SecretReference = { arn: string } | { name: string };

/** A provider as deployed: its settings (its module's schema, defaults filled in) and its secrets by field. */
export interface ProviderSettings {
  name: string;
  settings: Readonly<Record<string, unknown>>;
  secrets: Readonly<Record<string, SecretReference>>;
}

export interface DeploySettings {
  stage: Stage;
  /** RETAIN data, deletion protection, longer log retention. */
  production: boolean;
  /** Account and region when given (context or CDK_DEFAULT_*); otherwise environment-agnostic. */
  env: { account?: string; region?: string };
  /** The provider new tasks go to (context `provider`). */
  provider: ProviderSettings;
  /**
   * Other providers whose secret is named in context (`replicateSecretArn`...): their functions
   * keep their settings and secrets, so tasks started there before a switch still finish there.
   */
  otherProviders: ProviderSettings[];
  /** Per model, the providers new tasks go to, in order (context `providerRoutes`, JSON); unset: `provider` alone. */
  providerRoutes?: Readonly<Partial<Record<string, readonly string[]>>>;
  /** Billing: what the billing functions receive (functions/config/billing.ts). */
  billing: BillingDeploySettings;
  /** Values every function receives (functions/config/ reads them). */
  runtime: {
    authCacheTtlSeconds: number;
    defaultRateLimit: number;
    taskTimeoutSeconds: number;
    /** How long the simulated provider takes: every stage's test mode, and a simulated stage's tasks. */
    simDelaySeconds: number;
    /** The live credits a new account holder's account opens with (context `signupCredits`). */
    signupCredits: number;
    /** Consecutive failed creates that open a provider's circuit (context `circuitFailureThreshold`). */
    circuitFailureThreshold: number;
    /** How long an open circuit skips its provider before one probe (context `circuitCoolDownSeconds`). */
    circuitCoolDownSeconds: number;
  };
  api: {
    domain?: CustomDomain;
    /** Stage-wide backstop; per-key limits are enforced by the functions. */
    throttle: { rateLimit: number; burstLimit: number };
    webAclArn?: string;
  };
  cdn: {
    domain?: CustomDomain;
    webAclArn?: string;
    /**
     * CloudFront standard logs into the access-log bucket, in the regions CloudFront delivers
     * them to (not the opt-in ones; lib/constructs/media-storage.ts decides per region).
     */
    logs: boolean;
  };
  /** The web console's distribution (its web ACL is the CDN's `cdnWebAclArn`: both are CloudFront's). */
  console: { domain?: CustomDomain };
  /** Invitation mail through SES (issue 36); absent: invite-member prints the mail in its log. */
  mail?: MailDeploySettings;
  alarms: {
    /** An existing SNS topic for alarm and OK notifications. */
    topicArn?: string;
    /** Addresses the stack subscribes to a topic of its own (created only when given). */
    emails: string[];
    serverErrorRate: number;
    latencyP99Ms: number;
    /** TaskRefunded / TaskStarted over an hour, once at least `refundMinTasks` tasks started. */
    refundRatio: number;
    refundMinTasks: number;
    /** ProviderError count in 10 minutes. */
    providerErrors: number;
  };
  /**
   * Reserved concurrency of the background functions (0: no reservation). It caps them, so a
   * burst of copies or an overlapping sweep cannot take the account's concurrency from the API.
   */
  background: { copyWorkerConcurrency: number; sweeperConcurrency: number; submissionConsumerConcurrency: number };
  logRetentionDays: number;
  /** Bundle the AWS SDK into each function instead of using the runtime's copy. */
  bundleAwsSdk: boolean;
  /**
   * A synth for `sam local invoke` only: declares DYNAMODB_ENDPOINT and S3_ENDPOINT (empty) on
   * every function, because SAM's --env-vars can only override variables the template declares.
   */
  samLocal: boolean;
  /**
   * Ask Secrets Manager, before synthesizing, whether every secret the stage references exists
   * (bin/deploy/check-secrets.ts); off by default, so synth stays offline.
   */
  checkSecrets: boolean;
}

/** The sender (MAIL_FROM) and the SES identity the stateful stack creates for it: a domain or that address. */
export interface MailDeploySettings {
  fromAddress: string;
  identity: string;
}

/** Packs and plan as JSON text (checked against the runtime's schema), the return page, Stripe's two secrets. */
export interface BillingDeploySettings {
  packsJson?: string;
  planJson?: string;
  returnUrl?: string;
  secrets: Readonly<Record<keyof typeof STRIPE_SECRETS, SecretReference>>;
}

export function readDeploySettings(
  context: ContextReader,
  env: Record<string, string | undefined> = process.env,
): DeploySettings {
  const deploy = readContextGroup(DEPLOY, context);
  const { stage } = deploy;
  const production = stage === 'prod';
  // cdk.json names the provider; a context without one deploys Replicate.
  const chosen = readContext(PROVIDERS.provider, context) ?? 'replicate';
  const provider = providerSettings(context, stage, settingsOf(chosen)!, true)!;
  const otherProviders = PROVIDER_SETTINGS_LIST.filter((module) => module.name !== chosen)
    .map((module) => providerSettings(context, stage, module, false))
    .filter((settings) => settings !== undefined);

  const providerRoutes = routesSetting(context, [provider, ...otherProviders].map((deployed) => deployed.name));

  const account = deploy.account ?? env.CDK_DEFAULT_ACCOUNT;
  const region = deploy.region ?? env.CDK_DEFAULT_REGION;

  return {
    stage,
    production,
    env: { ...optional('account', account), ...optional('region', region) },
    provider,
    otherProviders,
    ...(providerRoutes && { providerRoutes }),
    runtime: {
      authCacheTtlSeconds: readContext(GATEWAY.authCacheTtlSeconds, context),
      signupCredits: readContext(IDENTITY.signupCredits, context),
      defaultRateLimit: readContext(IDENTITY.defaultRateLimit, context),
      taskTimeoutSeconds: readContext(LIFECYCLE.taskTimeoutSeconds, context),
      simDelaySeconds: readContext(SIM_DELAY, context),
      circuitFailureThreshold: readContext(CIRCUIT.failureThreshold, context),
      circuitCoolDownSeconds: readContext(CIRCUIT.coolDownSeconds, context),
    },
    api: {
      ...optional('domain', domain(context, 'api')),
      throttle: { rateLimit: deploy.apiThrottleRateLimit, burstLimit: deploy.apiThrottleBurstLimit },
      ...optional('webAclArn', deploy.apiWebAclArn),
    },
    cdn: {
      ...optional('domain', domain(context, 'cdn')),
      ...optional('webAclArn', deploy.cdnWebAclArn),
      logs: deploy.cdnLogs,
    },
    console: { ...optional('domain', domain(context, 'console')) },
    ...optional('mail', mailSettings(deploy)),
    billing: billingSettings(context, stage),
    alarms: alarmSettings(deploy),
    background: {
      copyWorkerConcurrency: deploy.copyWorkerConcurrency,
      sweeperConcurrency: deploy.sweeperConcurrency,
      submissionConsumerConcurrency: deploy.submissionConsumerConcurrency,
    },
    logRetentionDays: deploy.logRetentionDays ?? (production ? 90 : 14),
    bundleAwsSdk: deploy.bundleAwsSdk,
    samLocal: deploy.samLocal,
    checkSecrets: deploy.checkSecrets,
  };
}

/**
 * Context `billingPacks` and `billingPlan` (JSON, as text or inline in cdk.json), `billingReturnUrl`,
 * and Stripe's secrets by `stripeSecretKeySecretArn|Name` and `stripeWebhookSecretArn|Name`
 * (default names vidgen/<stage>/stripe-secret-key and vidgen/<stage>/stripe-webhook-secret).
 */
function billingSettings(context: ContextReader, stage: Stage): BillingDeploySettings {
  const packsJson = readContext(BILLING.packsJson, context);
  const planJson = readContext(BILLING.planJson, context);
  try {
    parseCatalogue(packsJson, planJson, { packs: 'Context "billingPacks"', plan: 'Context "billingPlan"' });
  } catch (error) {
    if (error instanceof BillingSettingsError) throw new DeploySettingsError(error.message);
    throw error;
  }
  const returnUrl = readContext(BILLING.returnUrl, context);
  // The functions take any http(s) URL (the local stack's console); a deployed one is https.
  if (returnUrl !== undefined && !returnUrl.startsWith('https://')) {
    throw new DeploySettingsError(`Context "billingReturnUrl" must be an https URL (the console's billing page); got "${returnUrl}".`);
  }
  return {
    ...optional('packsJson', packsJson),
    ...optional('planJson', planJson),
    ...optional('returnUrl', returnUrl),
    secrets: {
      secretKey: secretReference(context, stage, STRIPE_SECRETS.secretKey.context, STRIPE_SECRETS.secretKey.defaultName),
      webhookSecret: secretReference(context, stage, STRIPE_SECRETS.webhookSecret.context, STRIPE_SECRETS.webhookSecret.defaultName),
    },
  };
}

/** Context `mailFromAddress` (required in prod) and `mailIdentity` (default: the address's domain), checked together. */
function mailSettings(deploy: ValuesOf<typeof DEPLOY>): MailDeploySettings | undefined {
  const fromAddress = deploy.mailFromAddress;
  if (fromAddress === undefined) {
    if (deploy.mailIdentity !== undefined) throw new DeploySettingsError('Context "mailIdentity" needs "mailFromAddress": the address invitations are sent from.');
    // Invitations are mailed only through SES: prod does not deploy with its mail going to a log.
    if (deploy.stage === 'prod') {
      throw new DeploySettingsError(
        'stage=prod needs a sender for invitation mail: pass -c mailFromAddress=invites@example.com (and -c mailIdentity=<domain or address> ' +
          "when the SES identity is not the address's domain); docs/operations.md, \"Invitation mail (SES)\".",
      );
    }
    return undefined;
  }
  const at = fromAddress.lastIndexOf('@');
  if (at < 1 || !/^[^@\s]+@[a-z0-9.-]+\.[a-z]{2,}$/i.test(fromAddress)) throw new DeploySettingsError(`Context "mailFromAddress" must be an email address; got "${fromAddress}".`);
  const identity = (deploy.mailIdentity ?? fromAddress.slice(at + 1)).toLowerCase();
  const domainOf = fromAddress.slice(at + 1).toLowerCase();
  if (identity !== fromAddress.toLowerCase() && identity !== domainOf) {
    throw new DeploySettingsError(`Context "mailIdentity" must be "mailFromAddress" itself or its domain (${domainOf}); got "${identity}".`);
  }
  return { fromAddress, identity };
}

function alarmSettings(deploy: ValuesOf<typeof DEPLOY>): DeploySettings['alarms'] {
  const topicArn = deploy.alarmTopicArn;
  if (topicArn !== undefined && !topicArn.includes(':sns:')) {
    throw new DeploySettingsError(`alarmTopicArn must be an SNS topic ARN; got "${topicArn}".`);
  }
  const emails = deploy.alarmEmail;
  if (deploy.stage === 'prod' && !topicArn && emails.length === 0) {
    // An alarm nobody receives is no alarm: prod does not deploy without a recipient.
    throw new DeploySettingsError(
      'stage=prod needs somewhere to send alarms: pass -c alarmTopicArn=arn:aws:sns:<region>:<account>:<topic> (an existing topic) ' +
        'or -c alarmEmail=ops@example.com (the stack creates a topic and subscribes the address; confirm the e-mail AWS sends).',
    );
  }
  return {
    ...optional('topicArn', topicArn),
    emails,
    serverErrorRate: deploy.alarmServerErrorRate,
    latencyP99Ms: deploy.alarmLatencyP99Ms,
    refundRatio: deploy.alarmRefundRatio,
    refundMinTasks: deploy.alarmRefundMinTasks,
    providerErrors: deploy.alarmProviderErrors,
  };
}

/**
 * A provider's deploy settings: its module's settings by their context keys (defaults filled
 * in), and where each of its secrets lives. Undefined for a provider other than the chosen one
 * whose required secrets are not named in context: it is not deployed.
 */
function providerSettings(context: ContextReader, stage: Stage, module: SomeProviderSettings, chosen: boolean): ProviderSettings | undefined {
  const deployed = Object.entries(module.secrets).flatMap(([field, secret]) => (secret.deployed ? [{ field, secret, ...secret.deployed }] : []));
  const named = (secretContext: string) => {
    const where = readContextGroup(secretSettings(secretContext), context);
    return where.arn ?? where.name;
  };
  if (!chosen && !deployed.some(({ secret, context: secretContext }) => secret.required && named(secretContext))) return undefined;
  const values = readContextGroup(module.settings, context);
  const settings = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
  const secrets = Object.fromEntries(deployed.map(({ field, context: secretContext, defaultName }) => [field, secretReference(context, stage, secretContext, defaultName)]));
  return { name: module.name, settings, secrets };
}

/** `providerRoutes`: checked like PROVIDER_ROUTES, and every provider it names deployed (its secret named). */
function routesSetting(context: ContextReader, deployed: string[]): DeploySettings['providerRoutes'] {
  const raw = readContext(PROVIDERS.routesJson, context);
  if (raw === undefined) return undefined;
  let routes;
  try {
    routes = parseProviderRoutes(raw);
  } catch (error) {
    throw new DeploySettingsError(`Context "providerRoutes" ${(error as Error).message}.`);
  }
  const missing = routedProviders(routes).filter((name) => !deployed.includes(name));
  if (missing.length > 0) {
    throw new DeploySettingsError(`Context "providerRoutes" names ${missing.join(', ')}, not deployed: name its secret in context (e.g. ${missing[0]}SecretArn).`);
  }
  return routes;
}

/** A secret by `<setting>Arn`, else by `<setting>Name`, else by its default name for the stage. */
function secretReference(context: ContextReader, stage: Stage, setting: string, defaultName: string): SecretReference {
  const { arn, name } = readContextGroup(secretSettings(setting), context);
  if (arn) {
    if (!arn.includes(':secretsmanager:')) {
      throw new DeploySettingsError(`${setting}Arn must be a Secrets Manager secret ARN; got "${arn}".`);
    }
    return { arn };
  }
  return { name: name ?? `vidgen/${stage}/${defaultName}` };
}

function domain(context: ContextReader, prefix: 'api' | 'cdn' | 'console'): CustomDomain | undefined {
  const { domainName, certificateArn } = readContextGroup(domainSettings(prefix), context);
  if (!domainName && !certificateArn) return undefined;
  if (!domainName || !certificateArn) {
    throw new DeploySettingsError(`${prefix}DomainName and ${prefix}CertificateArn go together: set both or neither.`);
  }
  if (prefix !== 'api' && !certificateArn.includes(':us-east-1:')) {
    throw new DeploySettingsError(`${prefix}CertificateArn must be an ACM certificate in us-east-1 (CloudFront requires it).`);
  }
  return { domainName, certificateArn };
}

const optional = <K extends string, V>(key: K, value: V | undefined) =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
