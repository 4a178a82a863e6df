import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { QUEUE_URL_VARIABLES, type QueueName } from '#adapters/queues/queue-names';
import { COPIES } from '#config/service';
import type { FunctionSpec } from '#spec/function-spec';
import type { StripeSecretName } from '#spec/needs';
import type { ApiFunction } from './constructs/api-function';
import type { WorkQueue } from './constructs/work-queue';
import type { DeploySettings } from './deploy-settings';
import {
  billingEnvironment,
  identityEnvironment,
  mailEnvironment,
  mediaEnvironment,
  providerEnvironment,
  tableEnvironment,
} from './function-environment';
import { RESULT_COPY_MEDIA, SIMULATED_PROVIDER_MEDIA, SIMULATED_RESULT_SOURCE_MEDIA, THUMBNAIL_SOURCE_MEDIA } from './function-permissions';

/**
 * Binders (the idea of Powertools' `bind` helpers): each gives a function one thing its spec
 * needs, the environment variables that name it and the grant that allows it, together, so a
 * function never holds a variable without the permission, or the reverse. `bindAll` applies
 * exactly those the spec's needs call for; nothing else sets a function's environment or grants.
 */
export interface Bindings {
  settings: DeploySettings;
  table: ITableV2;
  tableName: string;
  bucket: IBucket;
  bucketName: string;
  publicMediaBaseUrl: string;
  queues: Readonly<Record<QueueName, WorkQueue>>;
  /** The deployed providers' secrets, by the variable that carries each ARN. */
  providerSecrets: ReadonlyMap<string, ISecret>;
  stripeSecrets: Readonly<Record<StripeSecretName, ISecret>>;
  identity: { issuer: string; clientId: string };
  /** Another function, by name (what `needs.invokes` names). */
  functionNamed: (name: string) => ApiFunction;
  /** Where the ffmpeg layer puts its binary. */
  ffmpegBinary: string;
  /** The stage's SES identity (the stateful stack's), when it sends mail. */
  mailIdentityArn?: string;
}

/** The variable that tells a function where an invoked function is, by the invoked function's name. */
const INVOKE_VARIABLES: Readonly<Record<string, string>> = { 'copy-output': COPIES.copyWorkerFunction.variable! };

/** Runs the task lifecycle: starts, follows or completes tasks (the copy worker completes them without calling a provider). */
export const runsLifecycle = (spec: FunctionSpec): boolean => spec.needs.providers === true || spec.needs.copiesResults === true;

export function bindTable(fn: ApiFunction, b: Bindings, table: NonNullable<FunctionSpec['needs']['table']>): void {
  fn.addEnvironment(tableEnvironment(b.settings, b.tableName));
  if (table.actions.length > 0) fn.grantTable(b.table, table.actions, table.query);
}

/** The bucket's variables, and object actions on the spec's prefixes plus what its lifecycle work adds. */
export function bindMedia(fn: ApiFunction, b: Bindings, spec: FunctionSpec): void {
  const { needs } = spec;
  fn.addEnvironment(mediaEnvironment(b.settings, b));
  fn.grantMedia(
    b.bucket,
    needs.media,
    // The simulated provider's, on every stage: test-mode tasks run on it whatever the stage's provider is.
    needs.providers ? SIMULATED_PROVIDER_MEDIA : undefined,
    needs.copiesResults ? RESULT_COPY_MEDIA : undefined,
    needs.copiesResults ? SIMULATED_RESULT_SOURCE_MEDIA : undefined,
    needs.thumbnails ? THUMBNAIL_SOURCE_MEDIA : undefined,
  );
}

export function bindQueue(fn: ApiFunction, name: QueueName, queue: WorkQueue): void {
  fn.addEnvironment({ [QUEUE_URL_VARIABLES[name]]: queue.queue.queueUrl });
  queue.queue.grantSendMessages(fn.function);
}

export function bindInvoke(fn: ApiFunction, target: ApiFunction): void {
  const variable = INVOKE_VARIABLES[target.handlerName];
  if (!variable) throw new Error(`${fn.handlerName} invokes ${target.handlerName}, which has no variable naming it (lib/binders.ts, INVOKE_VARIABLES).`);
  fn.addEnvironment({ [variable]: target.function.functionName });
  fn.grantInvoke(target.function);
}

/**
 * The providers' settings and secrets' ARNs, for every function that runs the lifecycle; reading
 * the secrets only where the spec says it calls a provider (the copy worker never does).
 */
export function bindProviders(fn: ApiFunction, b: Bindings, options: { readSecrets: boolean }): void {
  fn.addEnvironment(providerEnvironment(b.settings, Object.fromEntries([...b.providerSecrets].map(([variable, secret]) => [variable, secret.secretArn]))));
  if (options.readSecrets) for (const secret of b.providerSecrets.values()) fn.grantSecretRead(secret);
}

/** Billing's settings, and exactly the named Stripe secrets: the webhook verifies with the signing secret and never calls Stripe. */
export function bindStripe(fn: ApiFunction, b: Bindings, names: readonly StripeSecretName[]): void {
  fn.addEnvironment(billingEnvironment(b.settings, Object.fromEntries(names.map((name) => [name, b.stripeSecrets[name].secretArn]))));
  for (const name of names) fn.grantSecretRead(b.stripeSecrets[name]);
}

export function bindIdentity(fn: ApiFunction, b: Bindings): void {
  fn.addEnvironment(identityEnvironment(b.settings, b.identity));
}

/**
 * `needs.mail`: on a stage with a sender, MAIL_FROM (and CONSOLE_URL), and ses:SendEmail on the
 * stage's one SES identity, from that address only (`ses:FromAddress`): no wildcard, no other
 * sender. Without a sender, nothing: the function prints its mail in its log.
 */
export function bindMail(fn: ApiFunction, b: Bindings): void {
  const { mail } = b.settings;
  if (!mail || !b.mailIdentityArn) return;
  fn.addEnvironment(mailEnvironment(b.settings));
  fn.grantSendEmail(b.mailIdentityArn, mail.fromAddress);
}

/** The ffmpeg layer (the function runs on its architecture: ApiFunction's `layers`) and where its binary is. */
export function bindThumbnails(fn: ApiFunction, b: Bindings): void {
  fn.addEnvironment({ FFMPEG_PATH: b.ffmpegBinary });
}

/** Everything the spec's needs call for. */
export function bindAll(fn: ApiFunction, b: Bindings): void {
  const { spec } = fn;
  const { needs } = spec;
  if (needs.table) bindTable(fn, b, needs.table);
  if (needs.media || runsLifecycle(spec)) bindMedia(fn, b, spec);
  if (runsLifecycle(spec)) bindProviders(fn, b, { readSecrets: needs.providers === true });
  for (const name of needs.queues ?? []) bindQueue(fn, name, b.queues[name]);
  for (const name of needs.invokes ?? []) bindInvoke(fn, b.functionNamed(name));
  if (needs.stripe) bindStripe(fn, b, needs.stripe);
  if (needs.identity) bindIdentity(fn, b);
  if (needs.mail) bindMail(fn, b);
  if (needs.thumbnails) bindThumbnails(fn, b);
}
