import {
  arn,
  bundledFileName,
  checkValue,
  decimal,
  emailList,
  flag,
  givenValue,
  oneOf,
  oneOfNumbers,
  setting,
  text,
  variableText,
  wholeNumber,
  type Setting,
  type SettingGroup,
  type ValueOf,
  type ValuesOf,
} from '#config/setting';

/**
 * The deploy's side of the one settings vocabulary (functions/config/setting.ts): a setting is
 * read from CDK context by its `context` key, with the same schema and default the functions
 * read its variable with, and handed to the functions as their environment (`environmentOf`).
 * The deploy-only settings are declared here. docs/operations.md lists the keys for operators.
 */
export class DeploySettingsError extends Error {}

/** Reads one context key; `App.node.tryGetContext` fits. */
export type ContextReader = (key: string) => unknown;

/** A setting's value from context (`-c key=value` text or a cdk.json value): its default when unset, a DeploySettingsError naming the key when it does not parse. */
export function readContext<S extends Setting>(declared: S, context: ContextReader): ValueOf<S> {
  const key = declared.context;
  if (!key) return declared.default as ValueOf<S>;
  const raw = givenValue(context(key));
  if (raw === undefined) return declared.default as ValueOf<S>;
  const checked = checkValue(declared.kind, raw);
  if (!checked.ok) throw new DeploySettingsError(`Context "${key}" ${checked.message}; got ${JSON.stringify(raw)}.`);
  return checked.value as ValueOf<S>;
}

/** Every setting of a group from context (those without a context key: their defaults). */
export function readContextGroup<G extends SettingGroup>(group: G, context: ContextReader): ValuesOf<G> {
  return Object.fromEntries(Object.entries(group).map(([field, declared]) => [field, readContext(declared, context)])) as ValuesOf<G>;
}

/**
 * The variables a function reads these values from: every setting the deploy can vary (a
 * context key), defaults included, so a function reads what the deploy decided, not its own
 * default. A setting delivered in the bundle is not among them (`bundledFilesOf`).
 */
export function environmentOf<G extends SettingGroup>(group: G, values: Partial<Record<keyof G, unknown>>): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const [field, declared] of Object.entries(group)) {
    const value = values[field as keyof G];
    if (declared.variable && declared.context && declared.delivery !== 'bundle' && value !== undefined) environment[declared.variable] = variableText(value);
  }
  return environment;
}

/** A setting's value as a file beside the bundle: its name there (`<VARIABLE>.json`) and its text. */
export interface BundledSetting {
  name: string;
  text: string;
}

/**
 * The files beside the bundle that carry the group's `delivery: 'bundle'` settings the deploy
 * set (a model map); unset, the function falls back on its shipped default (readSetting).
 */
export function bundledFilesOf<G extends SettingGroup>(group: G, values: Partial<Record<keyof G, unknown>>): BundledSetting[] {
  return Object.entries(group).flatMap(([field, declared]) => {
    const value = values[field as keyof G];
    return declared.variable && declared.context && declared.delivery === 'bundle' && value !== undefined
      ? [{ name: bundledFileName(declared), text: variableText(value) }]
      : [];
  });
}

export const STAGES = ['dev', 'prod'] as const;
export type Stage = (typeof STAGES)[number];

/** The retention periods CloudWatch Logs accepts. */
export const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
] as const;

/** What only the deploy reads (no function does). */
export const DEPLOY = {
  stage: setting({ context: 'stage', kind: oneOf(STAGES), default: 'dev' as Stage, doc: 'dev or prod: prod retains data, protects deletion and keeps logs longer.' }),
  account: setting({ context: 'account', kind: text, doc: 'The AWS account (else CDK_DEFAULT_ACCOUNT).' }),
  region: setting({ context: 'region', kind: text, doc: 'The AWS region (else CDK_DEFAULT_REGION).' }),
  apiThrottleRateLimit: setting({ context: 'apiThrottleRateLimit', kind: wholeNumber(1), default: 100, doc: "The stage's steady request rate (per-key limits are the functions')." }),
  apiThrottleBurstLimit: setting({ context: 'apiThrottleBurstLimit', kind: wholeNumber(1), default: 200, doc: "The stage's burst." }),
  apiWebAclArn: setting({ context: 'apiWebAclArn', kind: arn, doc: 'A regional web ACL for the API stage.' }),
  cdnWebAclArn: setting({ context: 'cdnWebAclArn', kind: arn, doc: "A CloudFront web ACL for the media CDN and the console." }),
  cdnLogs: setting({ context: 'cdnLogs', kind: flag, default: true, doc: 'CloudFront standard logs into the access-log bucket.' }),
  alarmTopicArn: setting({ context: 'alarmTopicArn', kind: arn, doc: 'An existing SNS topic for alarm and OK notifications.' }),
  alarmEmail: setting({ context: 'alarmEmail', kind: emailList, default: [] as string[], doc: 'Addresses the stack subscribes to a topic of its own.' }),
  alarmServerErrorRate: setting({ context: 'alarmServerErrorRate', kind: decimal(), default: 0.05, doc: '5xx share of requests that raises the alarm.' }),
  alarmLatencyP99Ms: setting({ context: 'alarmLatencyP99Ms', kind: wholeNumber(1), default: 5000, doc: 'p99 latency that raises the alarm.' }),
  alarmRefundRatio: setting({ context: 'alarmRefundRatio', kind: decimal({ above: 0, max: 1 }), default: 0.25, doc: 'TaskRefunded / TaskStarted over an hour that raises the alarm.' }),
  alarmRefundMinTasks: setting({ context: 'alarmRefundMinTasks', kind: wholeNumber(1), default: 5, doc: 'Started tasks before the refund ratio counts.' }),
  alarmProviderErrors: setting({ context: 'alarmProviderErrors', kind: wholeNumber(1), default: 3, doc: 'ProviderError count in 10 minutes that raises the alarm.' }),
  mailFromAddress: setting({ context: 'mailFromAddress', kind: text, doc: 'The address invitations are sent from with SES (MAIL_FROM); required in prod, unset in dev: the mail is logged.' }),
  mailIdentity: setting({ context: 'mailIdentity', kind: text, doc: "The SES identity the stack creates and invite-member may send from: a domain (Easy DKIM) or an address; default the from address's domain." }),
  copyWorkerConcurrency: setting({ context: 'copyWorkerConcurrency', kind: wholeNumber(0, 1000), default: 10, doc: 'Reserved concurrency of the copy worker (0: none).' }),
  sweeperConcurrency: setting({ context: 'sweeperConcurrency', kind: wholeNumber(0, 10), default: 2, doc: 'Reserved concurrency of the sweeper (0: none).' }),
  // Two consumers are plenty: the provider's budget, not they, sets the pace.
  submissionConsumerConcurrency: setting({ context: 'submissionConsumerConcurrency', kind: wholeNumber(0, 50), default: 2, doc: 'Reserved concurrency of the submission consumer (0: none).' }),
  logRetentionDays: setting({ context: 'logRetentionDays', kind: oneOfNumbers(LOG_RETENTION_DAYS), doc: 'Log retention in days (default 90 in prod, 14 otherwise).' }),
  bundleAwsSdk: setting({ context: 'bundleAwsSdk', kind: flag, default: false, doc: "Bundle the AWS SDK instead of using the runtime's." }),
  samLocal: setting({ context: 'samLocal', kind: flag, default: false, doc: 'A synth for sam local invoke only (declares the local endpoints).' }),
  checkSecrets: setting({ context: 'checkSecrets', kind: flag, default: false, doc: 'Ask Secrets Manager before synthesizing whether every secret the stage references exists.' }),
};

/** A custom domain's two keys, `<prefix>DomainName` and `<prefix>CertificateArn`. */
export const domainSettings = (prefix: 'api' | 'cdn' | 'console') => ({
  domainName: setting({ context: `${prefix}DomainName`, kind: text, doc: `The ${prefix}'s custom domain.` }),
  certificateArn: setting({ context: `${prefix}CertificateArn`, kind: arn, doc: `Its ACM certificate${prefix === 'api' ? '' : ' (us-east-1)'}.` }),
});

/** Where a secret lives: `<context>Arn` (a full ARN) or `<context>Name`. */
export const secretSettings = (context: string) => ({
  arn: setting({ context: `${context}Arn`, kind: arn, doc: 'The secret by full ARN.' }),
  name: setting({ context: `${context}Name`, kind: text, doc: 'The secret by name.' }),
});
