import { Annotations, CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { QUEUE_URL_VARIABLES, type QueueName } from '#adapters/queues/queue-names';
import { STRIPE_SECRETS } from '#adapters/stripe/settings';
import { ROUTES, type Route } from '#http/routes/index';
import { STREAMED_ROUTE_TIMEOUT_SECONDS } from '#http/route';
import { providerSettings } from '#providers/settings-registry';
import { BUNDLE_ALIASES, extraFilesOf } from './bundle-extras';
import { ApiFunction, type ApiFunctionProps, constructIdFor } from './constructs/api-function';
import { isPublicRoute, VidGenRestApi } from './constructs/rest-api';
import { ConsoleSite } from './constructs/console-site';
import { DeadLetterQueue } from './constructs/dead-letter-queue';
import { FFMPEG_LAYER_ARCHITECTURE, FFMPEG_LAYER_BINARY, FfmpegLayer } from './constructs/ffmpeg-layer';
import { ServiceAlarms } from './constructs/service-alarms';
import { ServiceDashboard } from './constructs/service-dashboard';
import { WorkQueue } from './constructs/work-queue';
import type { DeploySettings } from './deploy-settings';
import { sessionEnvironment, sharedEnvironment } from './function-environment';
import { BACKGROUND_FUNCTIONS, type StripeSecretName } from './function-needs';
import {
  type FunctionNeeds,
  needsOf,
  RESULT_COPY_MEDIA,
  THUMBNAIL_SOURCE_MEDIA,
  SIMULATED_PROVIDER_MEDIA,
  SIMULATED_RESULT_SOURCE_MEDIA,
} from './function-permissions';
import { readSharedValues, type SharedResources } from './shared-parameters';

export interface StatelessStackProps extends StackProps {
  settings: DeploySettings;
  /** The route table; ROUTES unless a test passes its own. */
  routes?: readonly Route[];
}

/**
 * How each queue is consumed. Submissions: few at a time, as they mostly wait for the provider's
 * budget (the budget, not this, is what paces them); small batches so a message waits little.
 */
const CONSUMERS: Readonly<Record<QueueName, { maxConcurrency: number; batchSize: number }>> = {
  'webhook-deliveries': { maxConcurrency: 10, batchSize: 10 },
  submissions: { maxConcurrency: 2, batchSize: 5 },
};

/** Sizes that differ from the house default (512 MB, 28 s: under API Gateway's 29 s; streamed routes: their integration's timeout). */
const SIZING: Readonly<Record<string, Pick<ApiFunctionProps, 'memorySize' | 'timeout' | 'retryAttempts' | 'maxEventAge'>>> = {
  'authorizer': { timeout: Duration.seconds(10) },
  // Runs every minute; a failed run is simply the next run's work, so Lambda need not retry it.
  'sweeper': { memorySize: 1024, timeout: Duration.minutes(2), retryAttempts: 0, maxEventAge: Duration.minutes(1) },
  // Streams provider outputs (up to 2 GB) into S3; network throughput grows with memory.
  'copy-output': { memorySize: 1024, timeout: Duration.minutes(5), retryAttempts: 2 },
  // One delivery attempt waits at most 10 s for the customer's endpoint.
  'webhook-delivery': { timeout: Duration.seconds(30) },
  // A batch of creates, each waiting up to 5 s for its turn and 10 s for Replicate's answer.
  'submission-consumer': { timeout: Duration.seconds(60) },
};

/**
 * Compute: the REST API, one function per endpoint (from the route table), the authorizer, the
 * every-minute sweeper, the queue consumers (copies, submissions, webhook deliveries) and the
 * alarms. Holds no data: it can be destroyed and
 * redeployed without losing anything.
 */
export class StatelessStack extends Stack {
  readonly functions = new Map<string, ApiFunction>();
  readonly restApi: VidGenRestApi;
  readonly sweepSchedule: Rule;
  /** The deployed providers' secrets (API tokens, callback signing secrets), by the variable that carries each ARN. */
  readonly providerSecrets: ReadonlyMap<string, ISecret>;
  /** Stripe's API key and webhook signing secret (imported: operators create them). */
  readonly stripeSecrets: Readonly<Record<StripeSecretName, ISecret>>;
  /** The stateful stack's table, bucket and CDN URL, read from SSM at deploy time (no imports). */
  readonly data: SharedResources;
  /** Where failed background invocations go, each with a depth alarm. */
  readonly deadLetterQueues: { copyWorker: DeadLetterQueue; sweeper: DeadLetterQueue; sweepSchedule: DeadLetterQueue };
  /**
   * Queues between functions, each with its dead-letter queue (lib/constructs/work-queue.ts).
   * Create them (and their consumers) before the alarms below, which watch every one.
   */
  readonly workQueues: WorkQueue[] = [];
  readonly alarms: ServiceAlarms;
  readonly dashboard: ServiceDashboard;
  /** The web console: its bucket, and a distribution that also fronts the API at /api/v1/*. */
  readonly console: ConsoleSite;

  constructor(scope: Construct, id: string, props: StatelessStackProps) {
    super(scope, id, props);
    const { settings } = props;
    const routes = props.routes ?? ROUTES;
    const data = readSharedValues(this, settings.stage);
    this.data = data;

    this.providerSecrets = providerSecretsOf(this, settings);
    this.stripeSecrets = stripeSecretsOf(this, settings);
    const environment = sharedEnvironment(settings, {
      tableName: data.tableName,
      bucketName: data.mediaBucketName,
      publicMediaBaseUrl: data.publicMediaBaseUrl,
      providerSecretArns: Object.fromEntries([...this.providerSecrets].map(([variable, secret]) => [variable, secret.secretArn])),
    });
    const logRetention = settings.logRetentionDays as RetentionDays;

    // Background functions: failures land in a queue an operator can read, and reserved
    // concurrency caps them so a burst of copies cannot take the account's pool from the API.
    this.deadLetterQueues = {
      copyWorker: new DeadLetterQueue(this, 'CopyWorkerFailures', {
        name: 'copy-worker',
        purpose: 'copy-worker invocations that failed all three attempts',
      }),
      sweeper: new DeadLetterQueue(this, 'SweeperFailures', {
        name: 'sweeper',
        purpose: 'sweeper runs that failed, or could not start within a minute',
      }),
      sweepSchedule: new DeadLetterQueue(this, 'SweepScheduleFailures', {
        name: 'sweep-schedule',
        purpose: 'schedule events EventBridge could not deliver to the sweeper',
      }),
    };
    const reserved = (concurrency: number) => (concurrency > 0 ? { reservedConcurrency: concurrency } : {});
    const background: Readonly<Record<string, Pick<ApiFunctionProps, 'onFailure' | 'reservedConcurrency'>>> = {
      'copy-output': {
        onFailure: this.deadLetterQueues.copyWorker.queue,
        ...reserved(settings.background.copyWorkerConcurrency),
      },
      'sweeper': {
        onFailure: this.deadLetterQueues.sweeper.queue,
        ...reserved(settings.background.sweeperConcurrency),
      },
      'submission-consumer': reserved(settings.background.submissionConsumerConcurrency),
    };

    // The event pipeline's queues, each with its DLQ (alarms and dashboard pick them up).
    const queues: Record<QueueName, WorkQueue> = {
      'webhook-deliveries': new WorkQueue(this, 'WebhookDeliveries', {
        name: 'webhook-deliveries',
        purpose: 'webhook delivery attempts',
        consumerTimeout: SIZING['webhook-delivery']!.timeout!,
      }),
      submissions: new WorkQueue(this, 'Submissions', {
        name: 'submissions',
        purpose: "creates waiting for a turn in the provider's budget",
        consumerTimeout: SIZING['submission-consumer']!.timeout!,
      }),
    };
    this.workQueues.push(...Object.values(queues));

    const publicHandlers = new Set(routes.filter(isPublicRoute).map((route) => route.handler));
    // As long as their integration may run, not the house 28 s.
    const streamedHandlers = new Set(routes.filter((route) => route.streaming).map((route) => route.handler));
    let ffmpeg: FfmpegLayer | undefined;
    const create = (handler: string, copyWorker?: ApiFunction): ApiFunction => {
      const { needs, declared } = needsOf(handler, { publicRoute: publicHandlers.has(handler) });
      if (!declared) {
        Annotations.of(this).addWarningV2(
          'vidgen:undeclared-permissions',
          `functions/handlers/${handler}.ts has no needs in lib/function-needs.ts; it gets only ${needs.table.actions.length ? 'the rate-limit counter' : 'no permissions'}.`,
        );
      }
      const fn = new ApiFunction(this, constructIdFor(handler), {
        handler,
        purpose: needs.purpose,
        environment: {
          ...environment,
          ...(needs.queuesCopies && copyWorker && { COPY_WORKER_FUNCTION: copyWorker.function.functionName }),
          ...(needs.makesThumbnails && { FFMPEG_PATH: FFMPEG_LAYER_BINARY }),
          ...(handler === 'authorizer' && sessionEnvironment(settings, { issuer: data.identityIssuer, clientId: data.userPoolClientId })),
          ...Object.fromEntries((needs.queues?.send ?? []).map((name) => [QUEUE_URL_VARIABLES[name], queues[name].queue.queueUrl])),
          ...(needs.stripe && billingEnvironment(settings, this.stripeSecrets)),
        },
        logRetention,
        retainLogs: settings.production,
        bundleAwsSdk: settings.bundleAwsSdk,
        extraFiles: extraFilesOf(handler, { callsProvider: needs.provider === true }),
        ...(BUNDLE_ALIASES[handler] && { bundleAliases: BUNDLE_ALIASES[handler] }),
        ...(needs.makesThumbnails && {
          layers: { layers: [(ffmpeg ??= new FfmpegLayer(this, 'Ffmpeg')).layer], architecture: FFMPEG_LAYER_ARCHITECTURE },
        }),
        ...(streamedHandlers.has(handler) && { timeout: Duration.seconds(STREAMED_ROUTE_TIMEOUT_SECONDS) }),
        ...SIZING[handler],
        ...background[handler],
      });
      this.grant(fn, needs, data, copyWorker);
      for (const name of needs.queues?.send ?? []) queues[name].queue.grantSendMessages(fn.function);
      if (needs.queues?.consume) queues[needs.queues.consume].consumeWith(fn.function, CONSUMERS[needs.queues.consume]);
      this.functions.set(handler, fn);
      return fn;
    };

    // The copy worker first: the functions that queue copies are told its name.
    const copyWorker = create('copy-output');
    const authorizer = create('authorizer', copyWorker);
    for (const handler of new Set(routes.map((route) => route.handler))) {
      if (!this.functions.has(handler)) create(handler, copyWorker);
    }
    const sweeper = this.functions.get('sweeper') ?? create('sweeper', copyWorker);
    // The other functions behind no route (queue consumers).
    for (const handler of Object.keys(BACKGROUND_FUNCTIONS)) {
      if (!this.functions.has(handler)) create(handler, copyWorker);
    }

    this.restApi = new VidGenRestApi(this, 'Api', {
      stage: settings.stage,
      routes,
      functionFor: (handler) => this.functionOf(handler),
      authorizer: authorizer.function,
      authCacheTtlSeconds: settings.runtime.authCacheTtlSeconds,
      throttle: settings.api.throttle,
      logRetention,
      retainLogs: settings.production,
      ...(settings.api.domain && { domain: settings.api.domain }),
      ...(settings.api.webAclArn && { webAclArn: settings.api.webAclArn }),
    });

    // Functions that submit ask the provider to call back at the public callback route.
    for (const [handler, fn] of this.functions) {
      if (needsOf(handler, { publicRoute: publicHandlers.has(handler) }).needs.queues?.send?.includes('submissions')) {
        fn.function.addEnvironment('CALLBACK_BASE_URL', this.restApi.callbackBaseUrl);
      }
    }

    this.sweepSchedule = new Rule(this, 'SweepSchedule', {
      description: 'Runs the sweeper every minute: timeouts, refunds, result copies, idle tasks',
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [
        new LambdaFunction(sweeper.function, {
          retryAttempts: 0,
          maxEventAge: Duration.minutes(1),
          deadLetterQueue: this.deadLetterQueues.sweepSchedule.queue,
        }),
      ],
    });

    const functions = new Map([...this.functions].map(([handler, fn]) => [handler, fn.function]));
    const deadLetterQueues = [...Object.values(this.deadLetterQueues), ...this.workQueues.map((work) => work.deadLetters)];
    this.alarms = new ServiceAlarms(this, 'Alarms', {
      stage: settings.stage,
      api: this.restApi.api,
      accessLogs: this.restApi.accessLogs,
      functions,
      capped: new Set([...this.functions.values()].filter((fn) => fn.reservedConcurrency).map((fn) => fn.function)),
      authorizer: authorizer.function,
      sweeper: sweeper.function,
      copyWorker: copyWorker.function,
      table: data.table,
      deadLetterQueues,
      workQueues: this.workQueues,
      ...(settings.alarms.topicArn && { topicArn: settings.alarms.topicArn }),
      emails: settings.alarms.emails,
      thresholds: settings.alarms,
    });
    this.dashboard = new ServiceDashboard(this, 'Dashboard', {
      stage: settings.stage,
      api: this.restApi.api,
      functions,
      sweeper: sweeper.function,
      table: data.table,
      deadLetterQueues,
      workQueues: this.workQueues,
      alarms: this.alarms,
    });

    this.console = new ConsoleSite(this, 'Console', {
      api: { restApiId: this.restApi.api.restApiId, stage: settings.stage },
      publicApiUrl: this.restApi.url,
      mediaBaseUrl: data.publicMediaBaseUrl,
      identity: { userPoolClientId: data.userPoolClientId },
      ...(settings.console.domain && { domain: settings.console.domain }),
      ...(settings.cdn.webAclArn && { webAclArn: settings.cdn.webAclArn }),
    });
    new CfnOutput(this, 'ConsoleUrl', { value: this.console.url, description: 'The web console' });

    new CfnOutput(this, 'ApiUrl', { value: this.restApi.url, description: 'Base URL of the API (ends with /api/v1)' });
    if (this.restApi.domainName) {
      new CfnOutput(this, 'ApiDnsTarget', {
        value: this.restApi.domainName.domainNameAliasDomainName,
        description: `Point ${settings.api.domain?.domainName} here (CNAME, or a Route 53 alias)`,
      });
    }
  }

  functionOf(handler: string): IFunction {
    const fn = this.functions.get(handler);
    if (!fn) throw new Error(`No function for handler ${handler}.`);
    return fn.function;
  }

  /**
   * Turns one permission-table entry into grants. The simulated provider's are given on every
   * stage: test-mode tasks run on it whatever the stage's provider is.
   */
  private grant(fn: ApiFunction, needs: FunctionNeeds, data: SharedResources, copyWorker?: ApiFunction): void {
    if (needs.table.actions.length > 0) fn.grantTable(data.table, needs.table.actions, needs.table.query);
    fn.grantMedia(
      data.mediaBucket,
      needs.media,
      needs.provider ? SIMULATED_PROVIDER_MEDIA : undefined,
      needs.copiesResults ? RESULT_COPY_MEDIA : undefined,
      needs.copiesResults ? SIMULATED_RESULT_SOURCE_MEDIA : undefined,
      needs.makesThumbnails ? THUMBNAIL_SOURCE_MEDIA : undefined,
    );
    if (needs.provider) for (const secret of this.providerSecrets.values()) fn.grantSecretRead(secret);
    // Only the secrets it reads: the webhook verifies with the signing secret and never calls Stripe.
    for (const name of needs.stripe ?? []) fn.grantSecretRead(this.stripeSecrets[name]);
    if (needs.queuesCopies) {
      if (!copyWorker) throw new Error(`${fn.handlerName} queues copies but the copy worker does not exist yet.`);
      fn.grantInvoke(copyWorker.function);
    }
  }
}

/** Stripe's secrets, imported by ARN or by name. */
function stripeSecretsOf(scope: Construct, settings: DeploySettings): Record<StripeSecretName, ISecret> {
  const imported = (name: StripeSecretName, id: string) => {
    const reference = settings.billing.secrets[name];
    return 'arn' in reference ? Secret.fromSecretCompleteArn(scope, id, reference.arn) : Secret.fromSecretNameV2(scope, id, reference.name);
  };
  return { secretKey: imported('secretKey', 'StripeSecretKey'), webhookSecret: imported('webhookSecret', 'StripeWebhookSecret') };
}

/** What a billing function reads (functions/config/billing.ts): never a secret's value. */
function billingEnvironment(settings: DeploySettings, secrets: Record<StripeSecretName, ISecret>): Record<string, string> {
  const { billing } = settings;
  return {
    ...(billing.packsJson && { BILLING_PACKS: billing.packsJson }),
    ...(billing.planJson && { BILLING_PLAN: billing.planJson }),
    ...(billing.returnUrl && { BILLING_RETURN_URL: billing.returnUrl }),
    [STRIPE_SECRETS.secretKey.arnVariable]: secrets.secretKey.secretArn,
    [STRIPE_SECRETS.webhookSecret.arnVariable]: secrets.webhookSecret.secretArn,
  };
}

/** Every deployed provider's secrets, imported by ARN or name, by the variable that carries each ARN. */
function providerSecretsOf(scope: Construct, settings: DeploySettings): Map<string, ISecret> {
  const secrets = new Map<string, ISecret>();
  for (const deployed of [settings.provider, ...settings.otherProviders]) {
    for (const [field, secret] of Object.entries(providerSettings(deployed.name)!.secrets)) {
      const reference = deployed.secrets[field];
      if (!secret.deployed || !reference) continue;
      const id = `${pascal(deployed.name)}${pascal(field)}`;
      const imported = 'arn' in reference ? Secret.fromSecretCompleteArn(scope, id, reference.arn) : Secret.fromSecretNameV2(scope, id, reference.name);
      secrets.set(secret.deployed.arnVariable, imported);
    }
  }
  return secrets;
}

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);
