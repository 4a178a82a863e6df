import { CfnOutput, Duration, Stack, Stage, type StackProps } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Function as LambdaFunctionRef, type IFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import type { QueueName } from '#adapters/queues/queue-names';
import { ROUTES, type Route } from '#http/routes/index';
import { providerSettings } from '#providers/settings-registry';
import type { Area, DeadLetterName, FunctionSpec } from '#spec/function-spec';
import type { StripeSecretName } from '#spec/needs';
import { loadSpecs } from '#spec/registry';
import { bindAll, runsLifecycle, type Bindings } from './binders';
import { writeBundledSettings } from './bundle-options';
import { ApiFunction, constructIdFor } from './constructs/api-function';
import { VidGenRestApi } from './constructs/rest-api';
import { ConsoleSite } from './constructs/console-site';
import { DeadLetterQueue } from './constructs/dead-letter-queue';
import { FFMPEG_LAYER_ARCHITECTURE, FFMPEG_LAYER_BINARY, FfmpegLayer } from './constructs/ffmpeg-layer';
import { ServiceAlarms } from './constructs/service-alarms';
import { ServiceDashboard } from './constructs/service-dashboard';
import { WorkQueue } from './constructs/work-queue';
import type { DeploySettings } from './deploy-settings';
import { observabilityEnvironment, providerBundledSettings } from './function-environment';
import { readSharedValues, type SharedResources } from './shared-parameters';
import { API_GATEWAY, FunctionArea } from './stacks/function-area';

export interface StatelessStackProps extends StackProps {
  settings: DeploySettings;
  /** The API's methods; ROUTES (every HTTP spec with its doc) unless a test passes its own. */
  routes?: readonly Route[];
}

/** What each queue holds, for its alarms and the dashboard. */
const QUEUE_PURPOSES: Readonly<Record<QueueName, string>> = {
  'webhook-deliveries': 'webhook delivery attempts',
  submissions: "creates waiting for a turn in the provider's budget",
  'output-deliveries': "results PUT to customers' storage",
};

/** The one function of a kind of trigger (the authorizer, the schedule, the copy worker); throws unless there is exactly one. */
function onlyOne(specs: readonly FunctionSpec[], kind: FunctionSpec['trigger']['kind']): FunctionSpec {
  const found = specs.filter((spec) => spec.trigger.kind === kind);
  if (found.length !== 1) throw new Error(`The stack expects one function triggered by ${kind}; the specs name ${found.map((spec) => spec.name).join(', ') || 'none'}.`);
  return found[0]!;
}

/**
 * Compute: one function per spec (functions/handlers/*.spec.ts: the endpoints, the authorizer,
 * the every-minute sweeper, the copy worker, the queue consumers), each with exactly the
 * environment and grants its needs call for (lib/binders.ts); the REST API from the route table;
 * the queues, dead-letter queues and alarms. Holds no data: it can be destroyed and redeployed
 * without losing anything.
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
    const logRetention = settings.logRetentionDays as RetentionDays;
    const specs = loadSpecs();

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
    const deadLetters: Readonly<Record<DeadLetterName, DeadLetterQueue>> = {
      'copy-worker': this.deadLetterQueues.copyWorker,
      sweeper: this.deadLetterQueues.sweeper,
      'sweep-schedule': this.deadLetterQueues.sweepSchedule,
    };

    // The event pipeline's queues, each with its DLQ (alarms and dashboard pick them up); hidden
    // while a message is handled for longer than its consumer (the spec whose trigger it is) may run.
    const consumerOf = (name: QueueName) => specs.find((spec) => spec.trigger.kind === 'queue' && spec.trigger.queue === name);
    const queue = (id: string, name: QueueName) =>
      new WorkQueue(this, id, { name, purpose: QUEUE_PURPOSES[name], consumerTimeout: Duration.seconds(consumerOf(name)?.sizing?.timeoutSeconds ?? 28) });
    const queues: Record<QueueName, WorkQueue> = {
      'webhook-deliveries': queue('WebhookDeliveries', 'webhook-deliveries'),
      submissions: queue('Submissions', 'submissions'),
      'output-deliveries': queue('OutputDeliveries', 'output-deliveries'),
    };
    this.workQueues.push(...Object.values(queues));

    // One function per spec, in its area's nested stack: its size and bundle from the spec; then
    // what its needs call for.
    const areas = new Map<Area, FunctionArea>();
    const areaOf = (area: Area) => {
      let nested = areas.get(area);
      if (!nested) areas.set(area, (nested = new FunctionArea(this, `${constructIdFor(area)}Functions`, { area, stage: settings.stage })));
      return nested;
    };
    let ffmpeg: FfmpegLayer | undefined;
    // The providers' model maps ride beside the bundles of the functions that run the lifecycle
    // (the ones bindProviders gives the providers' settings), not in their 4 KB environment.
    const lifecycleFiles = writeBundledSettings(Stage.of(this)!.outdir, providerBundledSettings(settings));
    for (const spec of specs) {
      const area = areaOf(spec.area);
      const reserved = spec.sizing?.reservedConcurrency ? settings.background[spec.sizing.reservedConcurrency] : 0;
      const fn = new ApiFunction(area, constructIdFor(spec.name), {
        spec,
        environment: observabilityEnvironment(settings),
        logRetention,
        retainLogs: settings.production,
        bundleAwsSdk: settings.bundleAwsSdk,
        ...(spec.onFailure && { onFailure: deadLetters[spec.onFailure].queue }),
        ...(reserved > 0 && { reservedConcurrency: reserved }),
        ...(spec.needs.thumbnails && {
          layers: { layers: [(ffmpeg ??= new FfmpegLayer(area, 'Ffmpeg')).layer], architecture: FFMPEG_LAYER_ARCHITECTURE },
        }),
        ...(runsLifecycle(spec) && { files: lifecycleFiles }),
      });
      this.functions.set(spec.name, fn);
    }
    const bindings: Bindings = {
      settings,
      table: data.table,
      tableName: data.tableName,
      bucket: data.mediaBucket,
      bucketName: data.mediaBucketName,
      publicMediaBaseUrl: data.publicMediaBaseUrl,
      queues,
      providerSecrets: this.providerSecrets,
      stripeSecrets: this.stripeSecrets,
      identity: { issuer: data.identityIssuer, clientId: data.userPoolClientId },
      functionNamed: (name) => this.functions.get(name) ?? fail(`No function ${name}.`),
      ffmpegBinary: FFMPEG_LAYER_BINARY,
      // The stateful stack's SES identity, by its ARN (named by the identity itself: no value to pass).
      ...(settings.mail && { mailIdentityArn: this.formatArn({ service: 'ses', resource: 'identity', resourceName: settings.mail.identity }) }),
    };
    for (const fn of this.functions.values()) {
      bindAll(fn, bindings);
      const { trigger } = fn.spec;
      if (trigger.kind === 'queue') queues[trigger.queue].consumeWith(fn.function, { batchSize: trigger.batchSize, maxConcurrency: trigger.maxConcurrency });
    }
    const authorizer = this.functions.get(onlyOne(specs, 'authorizer').name)!;
    const sweeper = this.functions.get(onlyOne(specs, 'schedule').name)!;
    const copyWorker = this.functions.get(onlyOne(specs, 'async').name)!;

    // The API invokes each function as its area allows it (one permission per function, below):
    // the root refers to the functions by ARN only, so it depends on the areas and never the reverse.
    const imported = new Map<string, IFunction>();
    const importedFunction = (handler: string) => {
      let fn = imported.get(handler);
      if (!fn) {
        const id = `${constructIdFor(handler)}Ref`;
        imported.set(handler, (fn = LambdaFunctionRef.fromFunctionAttributes(this, id, { functionArn: this.functionOf(handler).functionArn, sameEnvironment: true, skipPermissions: true })));
      }
      return fn;
    };
    this.restApi = new VidGenRestApi(this, 'Api', {
      stage: settings.stage,
      routes,
      functionFor: importedFunction,
      authorizer: importedFunction(authorizer.handlerName),
      authCacheTtlSeconds: settings.runtime.authCacheTtlSeconds,
      throttle: settings.api.throttle,
      logRetention,
      retainLogs: settings.production,
      ...(settings.api.domain && { domain: settings.api.domain }),
      ...(settings.api.webAclArn && { webAclArn: settings.api.webAclArn }),
    });

    // Functions that submit ask the provider to call back at the public callback route.
    for (const fn of this.functions.values()) {
      if (fn.spec.needs.queues?.includes('submissions')) fn.addEnvironment({ CALLBACK_BASE_URL: this.restApi.callbackBaseUrl });
    }
    const { api } = this.restApi;
    const permitted = new Map<string, number>();
    for (const route of routes) {
      // One per route (a spec has one): the method and path it answers, on any stage.
      const count = (permitted.get(route.handler) ?? 0) + 1;
      permitted.set(route.handler, count);
      // Every route's handler has a function: the API above asked for each.
      this.functions.get(route.handler)!.function.addPermission(count === 1 ? 'ApiInvoke' : `ApiInvoke${count}`, {
        principal: API_GATEWAY,
        sourceArn: api.arnForExecuteApi(route.method, route.path.replace(/\{[^}]+\}/g, '*'), '*'),
      });
    }
    authorizer.function.addPermission('ApiAuthorize', {
      principal: API_GATEWAY,
      sourceArn: Stack.of(this).formatArn({ service: 'execute-api', resource: api.restApiId, resourceName: 'authorizers/*' }),
    });

    const schedule = sweeper.spec.trigger as Extract<FunctionSpec['trigger'], { kind: 'schedule' }>;
    // Beside the sweeper: its permission for EventBridge names the rule, which names the function.
    this.sweepSchedule = new Rule(areaOf(sweeper.spec.area), 'SweepSchedule', {
      description: `Runs the ${sweeper.handlerName} every ${schedule.everyMinutes === 1 ? 'minute' : `${schedule.everyMinutes} minutes`}: timeouts, refunds, result copies, idle tasks`,
      schedule: Schedule.rate(Duration.minutes(schedule.everyMinutes)),
      targets: [
        new LambdaFunction(sweeper.function, {
          // A failed run is simply the next run's work.
          retryAttempts: 0,
          maxEventAge: Duration.seconds(sweeper.spec.sizing?.maxEventAgeSeconds ?? 60),
          deadLetterQueue: deadLetters[schedule.undelivered].queue,
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
      placeOf: (handler) => {
        const { area } = this.functions.get(handler)!.spec;
        return { scope: areaOf(area), area };
      },
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

}

/** Stripe's secrets, imported by ARN or by name. */
function stripeSecretsOf(scope: Construct, settings: DeploySettings): Record<StripeSecretName, ISecret> {
  const imported = (name: StripeSecretName, id: string) => {
    const reference = settings.billing.secrets[name];
    return 'arn' in reference ? Secret.fromSecretCompleteArn(scope, id, reference.arn) : Secret.fromSecretNameV2(scope, id, reference.name);
  };
  return { secretKey: imported('secretKey', 'StripeSecretKey'), webhookSecret: imported('webhookSecret', 'StripeWebhookSecret') };
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

const fail = (message: string): never => {
  throw new Error(message);
};
