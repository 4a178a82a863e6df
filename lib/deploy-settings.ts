import { BillingSettingsError, parseCatalogue, STRIPE_SECRETS } from '#adapters/stripe/settings';
import { CONFIG_DEFAULTS } from '#config';
import type { SomeProviderSettings } from '#providers/provider-module';
import { parseProviderRoutes, routedProviders } from '#providers/route-settings';
import { PROVIDER_NAMES, PROVIDER_SETTINGS_LIST, providerSettings as settingsOf } from '#providers/settings-registry';

/**
 * Everything a deployment can vary, read once from CDK context (`cdk.json` defaults, overridden
 * on the command line with `-c key=value`). Values are checked here, so a typo in a deploy
 * command stops `cdk synth` with the key's name instead of producing a broken stack.
 * docs/operations.md lists the keys for operators.
 */
export type Stage = 'dev' | 'prod';
export const STAGES: readonly Stage[] = ['dev', 'prod'];

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

/** Packs and plan as JSON text (checked against the runtime's schema), the return page, Stripe's two secrets. */
export interface BillingDeploySettings {
  packsJson?: string;
  planJson?: string;
  returnUrl?: string;
  secrets: Readonly<Record<keyof typeof STRIPE_SECRETS, SecretReference>>;
}

export class DeploySettingsError extends Error {}

/** The retention periods CloudWatch Logs accepts. */
export const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
] as const;

/** Reads one context key; `App.node.tryGetContext` fits. */
export type ContextReader = (key: string) => unknown;

export function readDeploySettings(
  context: ContextReader,
  env: Record<string, string | undefined> = process.env,
): DeploySettings {
  const read = reader(context);
  const stage = read.oneOf('stage', STAGES, 'dev');
  const production = stage === 'prod';
  const chosen = read.oneOf('provider', PROVIDER_NAMES, 'replicate');
  const provider = providerSettings(read, stage, settingsOf(chosen)!, true)!;
  const otherProviders = PROVIDER_SETTINGS_LIST.filter((module) => module.name !== chosen)
    .map((module) => providerSettings(read, stage, module, false))
    .filter((settings) => settings !== undefined);

  const providerRoutes = routesSetting(read, [provider, ...otherProviders].map((deployed) => deployed.name));

  const account = read.string('account') ?? env.CDK_DEFAULT_ACCOUNT;
  const region = read.string('region') ?? env.CDK_DEFAULT_REGION;

  return {
    stage,
    production,
    env: { ...optional('account', account), ...optional('region', region) },
    provider,
    otherProviders,
    ...(providerRoutes && { providerRoutes }),
    runtime: {
      authCacheTtlSeconds: read.integer('authCacheTtlSeconds', CONFIG_DEFAULTS.authCacheTtlSeconds, 0, 3600),
      signupCredits: read.integer('signupCredits', CONFIG_DEFAULTS.signupCredits, 0, 1_000_000),
      defaultRateLimit: read.integer('defaultRateLimit', CONFIG_DEFAULTS.defaultRateLimit, 1),
      taskTimeoutSeconds: read.integer('taskTimeoutSeconds', CONFIG_DEFAULTS.taskTimeoutSeconds, 60),
      simDelaySeconds: read.integer('simDelaySeconds', CONFIG_DEFAULTS.simDelaySeconds, 0),
      circuitFailureThreshold: read.integer('circuitFailureThreshold', CONFIG_DEFAULTS.circuitFailureThreshold, 1, 1000),
      circuitCoolDownSeconds: read.integer('circuitCoolDownSeconds', CONFIG_DEFAULTS.circuitCoolDownSeconds, 1, 3600),
    },
    api: {
      ...optional('domain', domain(read, 'api')),
      throttle: {
        rateLimit: read.integer('apiThrottleRateLimit', 100, 1),
        burstLimit: read.integer('apiThrottleBurstLimit', 200, 1),
      },
      ...optional('webAclArn', read.arn('apiWebAclArn')),
    },
    cdn: {
      ...optional('domain', domain(read, 'cdn')),
      ...optional('webAclArn', read.arn('cdnWebAclArn')),
      logs: read.boolean('cdnLogs', true),
    },
    console: { ...optional('domain', domain(read, 'console')) },
    billing: billingSettings(read, stage),
    alarms: alarmSettings(read, stage),
    background: {
      copyWorkerConcurrency: read.integer('copyWorkerConcurrency', 10, 0, 1000),
      sweeperConcurrency: read.integer('sweeperConcurrency', 2, 0, 10),
      // Two consumers are plenty: the provider's budget, not they, sets the pace.
      submissionConsumerConcurrency: read.integer('submissionConsumerConcurrency', 2, 0, 50),
    },
    logRetentionDays: read.oneOfNumbers('logRetentionDays', LOG_RETENTION_DAYS, production ? 90 : 14),
    bundleAwsSdk: read.boolean('bundleAwsSdk', false),
    samLocal: read.boolean('samLocal', false),
    checkSecrets: read.boolean('checkSecrets', false),
  };
}

/**
 * Context `billingPacks` and `billingPlan` (JSON, as text or inline in cdk.json), `billingReturnUrl`,
 * and Stripe's secrets by `stripeSecretKeySecretArn|Name` and `stripeWebhookSecretArn|Name`
 * (default names vidgen/<stage>/stripe-secret-key and vidgen/<stage>/stripe-webhook-secret).
 */
function billingSettings(read: Reader, stage: Stage): BillingDeploySettings {
  const json = (key: string): string | undefined => {
    const value = read.raw(key);
    if (value === undefined || value === null) return undefined;
    return typeof value === 'string' ? value : JSON.stringify(value);
  };
  const packsJson = json('billingPacks');
  const planJson = json('billingPlan');
  try {
    parseCatalogue(packsJson, planJson, { packs: 'Context "billingPacks"', plan: 'Context "billingPlan"' });
  } catch (error) {
    if (error instanceof BillingSettingsError) throw new DeploySettingsError(error.message);
    throw error;
  }
  const returnUrl = read.string('billingReturnUrl');
  if (returnUrl !== undefined && !/^https:\/\/[^\s]+$/.test(returnUrl)) {
    throw new DeploySettingsError(`Context "billingReturnUrl" must be an https URL (the console's billing page); got "${returnUrl}".`);
  }
  return {
    ...optional('packsJson', packsJson),
    ...optional('planJson', planJson),
    ...optional('returnUrl', returnUrl),
    secrets: {
      secretKey: secretReference(read, stage, STRIPE_SECRETS.secretKey.context, STRIPE_SECRETS.secretKey.defaultName),
      webhookSecret: secretReference(read, stage, STRIPE_SECRETS.webhookSecret.context, STRIPE_SECRETS.webhookSecret.defaultName),
    },
  };
}

function alarmSettings(read: Reader, stage: Stage): DeploySettings['alarms'] {
  const topicArn = read.arn('alarmTopicArn');
  if (topicArn !== undefined && !topicArn.includes(':sns:')) {
    throw new DeploySettingsError(`alarmTopicArn must be an SNS topic ARN; got "${topicArn}".`);
  }
  const emails = (read.string('alarmEmail') ?? '')
    .split(',')
    .map((email) => email.trim())
    .filter(Boolean);
  for (const email of emails) {
    if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) {
      throw new DeploySettingsError(`alarmEmail must be e-mail addresses separated by commas; got "${email}".`);
    }
  }
  if (stage === 'prod' && !topicArn && emails.length === 0) {
    // An alarm nobody receives is no alarm: prod does not deploy without a recipient.
    throw new DeploySettingsError(
      'stage=prod needs somewhere to send alarms: pass -c alarmTopicArn=arn:aws:sns:<region>:<account>:<topic> (an existing topic) ' +
        'or -c alarmEmail=ops@example.com (the stack creates a topic and subscribes the address; confirm the e-mail AWS sends).',
    );
  }
  const refundRatio = read.number('alarmRefundRatio', 0.25);
  if (refundRatio <= 0 || refundRatio > 1) {
    throw new DeploySettingsError(`Context "alarmRefundRatio" must be a number above 0 and at most 1; got ${refundRatio}.`);
  }
  return {
    ...optional('topicArn', topicArn),
    emails,
    serverErrorRate: read.number('alarmServerErrorRate', 0.05),
    latencyP99Ms: read.integer('alarmLatencyP99Ms', 5000, 1),
    refundRatio,
    refundMinTasks: read.integer('alarmRefundMinTasks', 5, 1),
    providerErrors: read.integer('alarmProviderErrors', 3, 1),
  };
}

/**
 * A provider's deploy settings: its module's schema over the context keys it names, and where
 * each of its secrets lives. Undefined for a provider other than the chosen one whose required
 * secrets are not named in context: it is not deployed.
 */
function providerSettings(read: Reader, stage: Stage, module: SomeProviderSettings, chosen: boolean): ProviderSettings | undefined {
  const deployed = Object.entries(module.secrets).flatMap(([field, secret]) => (secret.deployed ? [{ field, secret, ...secret.deployed }] : []));
  const named = (context: string) => read.string(`${context}Arn`) ?? read.string(`${context}Name`);
  if (!chosen && !deployed.some(({ secret, context }) => secret.required && named(context))) return undefined;

  const keys = Object.entries(module.contextKeys).filter((entry): entry is [string, string] => entry[1] !== undefined);
  const given = Object.fromEntries(keys.map(([field, key]) => [field, read.raw(key) ?? undefined]));
  const parsed = module.settings.safeParse(given);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = module.contextKeys[String(issue.path[0])]!;
    throw new DeploySettingsError(`Context "${key}" ${issue.message}; got ${JSON.stringify(read.raw(key))}.`);
  }
  const secrets = Object.fromEntries(deployed.map(({ field, context, defaultName }) => [field, secretReference(read, stage, context, defaultName)]));
  return { name: module.name, settings: parsed.data as Record<string, unknown>, secrets };
}

/** `providerRoutes`: checked like PROVIDER_ROUTES, and every provider it names deployed (its secret named). */
function routesSetting(read: Reader, deployed: string[]): DeploySettings['providerRoutes'] {
  const raw = read.raw('providerRoutes');
  if (raw === undefined || raw === null || raw === '') return undefined;
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
function secretReference(read: Reader, stage: Stage, setting: string, defaultName: string): SecretReference {
  const arn = read.arn(`${setting}Arn`);
  if (arn) {
    if (!arn.startsWith('arn:') || !arn.includes(':secretsmanager:')) {
      throw new DeploySettingsError(`${setting}Arn must be a Secrets Manager secret ARN; got "${arn}".`);
    }
    return { arn };
  }
  return { name: read.string(`${setting}Name`) ?? `vidgen/${stage}/${defaultName}` };
}

function domain(read: Reader, prefix: 'api' | 'cdn' | 'console'): CustomDomain | undefined {
  const domainName = read.string(`${prefix}DomainName`);
  const certificateArn = read.arn(`${prefix}CertificateArn`);
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

type Reader = ReturnType<typeof reader>;

/** Context values arrive as strings from `-c key=value` and as JSON values from cdk.json. */
function reader(context: ContextReader) {
  const raw = (key: string): unknown => {
    const value = context(key);
    return typeof value === 'string' && value.trim() === '' ? undefined : value;
  };
  const fail = (key: string, expected: string, value: unknown): never => {
    throw new DeploySettingsError(`Context "${key}" must be ${expected}; got ${JSON.stringify(value)}.`);
  };
  const string = (key: string): string | undefined => {
    const value = raw(key);
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') return fail(key, 'a string', value);
    return value.trim();
  };
  const number = (key: string, fallback: number): number => {
    const value = raw(key);
    if (value === undefined || value === null) return fallback;
    const parsed = typeof value === 'number' ? value : Number(value);
    if (!Number.isFinite(parsed)) return fail(key, 'a number', value);
    return parsed;
  };
  const optionalInteger = (key: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined => {
    const value = raw(key);
    if (value === undefined || value === null) return undefined;
    const parsed = typeof value === 'number' ? value : Number(value);
    if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
      return fail(key, `a whole number from ${min} to ${max}`, value);
    }
    return parsed;
  };
  return {
    raw,
    string,
    number,
    optionalInteger,
    integer: (key: string, fallback: number, min: number, max?: number): number =>
      optionalInteger(key, min, max) ?? fallback,
    boolean: (key: string, fallback: boolean): boolean => {
      const value = raw(key);
      if (value === undefined || value === null) return fallback;
      if (value === true || value === 'true') return true;
      if (value === false || value === 'false') return false;
      return fail(key, 'true or false', value);
    },
    oneOfNumbers: (key: string, allowed: readonly number[], fallback: number): number => {
      const value = optionalInteger(key, 1);
      if (value === undefined) return fallback;
      if (!allowed.includes(value)) return fail(key, `one of ${allowed.join(', ')}`, value);
      return value;
    },
    oneOf: <T extends string>(key: string, allowed: readonly T[], fallback: T): T => {
      const value = string(key) ?? fallback;
      if (!(allowed as readonly string[]).includes(value)) return fail(key, `one of ${allowed.join(', ')}`, value);
      return value as T;
    },
    arn: (key: string): string | undefined => {
      const value = string(key);
      if (value !== undefined && !value.startsWith('arn:')) return fail(key, 'an ARN', value);
      return value;
    },
  };
}
