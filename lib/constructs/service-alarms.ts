import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  ComparisonOperator,
  type IMetric,
  MathExpression,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, type ILogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { TABLE_DEFINITION } from '#adapters/dynamodb/table-definition';
import type { DeadLetterQueue } from './dead-letter-queue';
import type { WorkQueue } from './work-queue';
import { businessMetric } from './service-metrics';

export interface ServiceAlarmsProps {
  stage: string;
  api: RestApi;
  /** The API's JSON access log (errorType = $context.error.responseType). */
  accessLogs: ILogGroup;
  /** Every function, by handler name. */
  functions: ReadonlyMap<string, IFunction>;
  /**
   * Where a function's own alarms live, and the word their names carry: its area's nested stack
   * (lib/stacks/function-area.ts), so they move with it and the root stays small. Unset: here.
   */
  placeOf?: (handler: string) => { scope: Construct; area: string };
  /** Functions with reserved concurrency (throttled by design in a burst). */
  capped: ReadonlySet<IFunction>;
  /** Watched through the access log instead of Lambda's Errors (see below). */
  authorizer: IFunction;
  sweeper: IFunction;
  copyWorker: IFunction;
  table: ITableV2;
  /** Every dead-letter queue of the stack (work queues' included): each gets a depth alarm. */
  deadLetterQueues: readonly DeadLetterQueue[];
  /** Queues between functions: an alarm when their oldest message waits too long. */
  workQueues: readonly WorkQueue[];
  /** SNS topic for alarm and OK notifications. */
  topicArn?: string;
  /** Addresses subscribed to a topic this construct creates (when not empty). */
  emails: readonly string[];
  thresholds: {
    serverErrorRate: number;
    latencyP99Ms: number;
    refundRatio: number;
    refundMinTasks: number;
    providerErrors: number;
  };
}

const FIVE_MINUTES = Duration.minutes(5);

/**
 * What an operator wants to be woken for. Authorizer "errors" are not Lambda's Errors metric:
 * the authorizer answers every bad key by throwing "Unauthorized" (API Gateway's 401 signal),
 * which Lambda counts as an error; real failures show in the access log as
 * AUTHORIZER_FAILURE / AUTHORIZER_CONFIGURATION_ERROR, counted by a metric filter.
 */
export class ServiceAlarms extends Construct {
  readonly alarms: Alarm[] = [];
  /** Where notifications go: the given topic and/or the one created for `emails`. */
  readonly topics: ITopic[] = [];

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    if (props.topicArn) this.topics.push(Topic.fromTopicArn(this, 'Topic', props.topicArn));
    if (props.emails.length > 0) this.topics.push(emailTopic(this, props.stage, props.emails));
    const actions = this.topics.map((topic) => new SnsAction(topic));
    const alarm = (alarmId: string, options: ConstructorParameters<typeof Alarm>[2], handler?: string) => {
      // A function's alarm is named after its area too: a name is physical, and the first deploy
      // that moved the alarms into the areas would otherwise create each before deleting its old self.
      const place = handler === undefined ? undefined : props.placeOf?.(handler);
      const scope = place ? ((place.scope.node.tryFindChild('Alarms') as Construct | undefined) ?? new Construct(place.scope, 'Alarms')) : this;
      const created = new Alarm(scope, alarmId, {
        treatMissingData: TreatMissingData.NOT_BREACHING,
        ...options,
        alarmName: `vidgen-${props.stage}-${place ? `${place.area}-` : ''}${options.alarmName}`,
      });
      for (const action of actions) {
        created.addAlarmAction(action);
        created.addOkAction(action);
      }
      this.alarms.push(created);
      return created;
    };

    // 5xx rate, only once there is enough traffic for a rate to mean something.
    const requests = props.api.metricCount({ period: FIVE_MINUTES, statistic: 'Sum' });
    const serverErrors = props.api.metricServerError({ period: FIVE_MINUTES, statistic: 'Sum' });
    alarm('Api5xxRate', {
      alarmName: 'api-5xx-rate',
      alarmDescription: `More than ${props.thresholds.serverErrorRate * 100}% of API requests answered 5xx over 5 minutes (at least 20 requests).`,
      metric: new MathExpression({
        expression: 'IF(requests >= 20, FILL(errors, 0) / requests, 0)',
        usingMetrics: { requests, errors: serverErrors },
        period: FIVE_MINUTES,
        label: '5xx rate',
      }),
      threshold: props.thresholds.serverErrorRate,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
    });

    alarm('ApiLatencyP99', {
      alarmName: 'api-latency-p99',
      alarmDescription: `p99 API latency above ${props.thresholds.latencyP99Ms} ms in 2 of 3 five-minute periods.`,
      metric: props.api.metricLatency({ period: FIVE_MINUTES, statistic: 'p99' }),
      threshold: props.thresholds.latencyP99Ms,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
    });

    for (const [handler, fn] of props.functions) {
      // A function with reserved concurrency is throttled by design in a burst (its asynchronous
      // events wait and retry): only throttling that lasts 15 minutes says the cap is too low.
      const capped = props.capped.has(fn);
      alarm(`Throttles${handler.replace(/[^a-zA-Z0-9]/g, '')}`, {
        alarmName: `throttles-${handler}`,
        alarmDescription: capped
          ? `Lambda throttled ${handler} for 15 minutes: the work needs more than its reserved concurrency.`
          : `Lambda throttled ${handler} (account concurrency exhausted?).`,
        metric: fn.metricThrottles({ period: FIVE_MINUTES, statistic: 'Sum' }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: capped ? 3 : 1,
      }, handler);
    }

    const authorizerFailures = new MetricFilter(this, 'AuthorizerFailures', {
      logGroup: props.accessLogs,
      filterPattern: FilterPattern.any(
        FilterPattern.stringValue('$.errorType', '=', 'AUTHORIZER_FAILURE'),
        FilterPattern.stringValue('$.errorType', '=', 'AUTHORIZER_CONFIGURATION_ERROR'),
      ),
      metricNamespace: `VidGen/${props.stage}`,
      metricName: 'AuthorizerFailures',
      metricValue: '1',
      defaultValue: 0,
    });
    alarm('AuthorizerErrors', {
      alarmName: 'authorizer-errors',
      alarmDescription: 'The API-key authorizer crashed or could not be invoked (callers got 500).',
      metric: authorizerFailures.metric({ period: FIVE_MINUTES, statistic: 'Sum' }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
    });

    alarm('SweeperErrors', {
      alarmName: 'sweeper-errors',
      alarmDescription: 'Sweeper runs failed: timeouts, refunds and result copies are not happening.',
      metric: props.sweeper.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' }),
      threshold: 2,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
    });
    alarm('SweeperStopped', {
      alarmName: 'sweeper-stopped',
      alarmDescription: 'The every-minute sweeper has not run for 10 minutes (schedule disabled?).',
      metric: props.sweeper.metricInvocations({ period: Duration.minutes(10), statistic: 'Sum' }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.BREACHING,
    });
    alarm('CopyWorkerErrors', {
      alarmName: 'copy-worker-errors',
      alarmDescription: 'Copies of finished results into the bucket are failing (the sweeper retries them).',
      metric: props.copyWorker.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' }),
      threshold: 3,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
    });

    // Errors of the API functions: a handler maps every expected failure to an envelope, so a
    // Lambda error (crash, timeout, out of memory) is a bug or an outage, even once.
    for (const [handler, fn] of props.functions) {
      if ([props.authorizer, props.sweeper, props.copyWorker].includes(fn)) continue;
      alarm(`Errors${handler.replace(/[^a-zA-Z0-9]/g, '')}`, {
        alarmName: `errors-${handler}`,
        alarmDescription: `${handler} failed (unhandled error, timeout or out of memory); callers got 500.`,
        metric: fn.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
      }, handler);
    }

    // Refunds against starts over an hour: a task is refunded when it fails or times out, so a
    // high ratio means the provider (or our side of it) is failing paid work. The guard keeps a
    // quiet hour (1 start, 1 refund) from paging anyone.
    const hour = Duration.hours(1);
    alarm('RefundRatio', {
      alarmName: 'refund-ratio',
      alarmDescription: `More than ${props.thresholds.refundRatio * 100}% of tasks refunded (TaskRefunded / TaskStarted over an hour, from ${props.thresholds.refundMinTasks} started tasks).`,
      metric: new MathExpression({
        expression: `IF(FILL(started, 0) >= ${props.thresholds.refundMinTasks}, FILL(refunded, 0) / started, 0)`,
        usingMetrics: {
          started: businessMetric(props.stage, 'TaskStarted', { period: hour, statistic: 'Sum' }),
          refunded: businessMetric(props.stage, 'TaskRefunded', { period: hour, statistic: 'Sum' }),
        },
        period: hour,
        label: 'refund ratio',
      }),
      threshold: props.thresholds.refundRatio,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
    });

    alarm('ProviderErrors', {
      alarmName: 'provider-errors',
      alarmDescription: `The generation provider failed ${props.thresholds.providerErrors} or more calls in 10 minutes (ProviderError: outage, bad token, timeouts).`,
      metric: businessMetric(props.stage, 'ProviderError', { period: Duration.minutes(10), statistic: 'Sum' }),
      threshold: props.thresholds.providerErrors,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
    });

    // A provider's circuit opened: its creates are skipped (failed over, or 502 if it was the
    // last route) until a probe succeeds. docs/operations.md, "When a provider is down".
    alarm('CircuitOpened', {
      alarmName: 'provider-circuit-opened',
      alarmDescription: 'A provider\'s circuit breaker opened (CircuitOpened): it failed creates in a row and is skipped for its cool-down. See docs/operations.md, "When a provider is down".',
      metric: businessMetric(props.stage, 'CircuitOpened', { period: FIVE_MINUTES, statistic: 'Sum' }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
    });

    // A refunded or disputed pack whose credits were already spent: money went back, credits did not.
    alarm('ReversalShortfall', {
      alarmName: 'reversal-shortfall',
      alarmDescription:
        'A refund or dispute could not take back all of a pack\'s credits (ReversalShortfall: credits the balance no longer had). See docs/operations.md, "Billing".',
      metric: businessMetric(props.stage, 'ReversalShortfall', { period: FIVE_MINUTES, statistic: 'Sum' }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
    });

    // An invitation whose mail SES refused or never took: the invitation stands, the invitee does not know (issue 36).
    alarm('InvitationMailFailed', {
      alarmName: 'invitation-mail-failed',
      alarmDescription:
        'An invitation mail could not be sent (InvitationMailFailed): the invitation is valid but its invitee was not told; SES may be in the sandbox, paused or refusing the sender. See docs/operations.md, "Invitation mail (SES)".',
      metric: businessMetric(props.stage, 'InvitationMailFailed', { period: FIVE_MINUTES, statistic: 'Sum' }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
    });

    for (const dlq of props.deadLetterQueues) {
      // By name: the DLQs inside work queues share the construct id `DeadLetters`.
      const id = dlq.name.replace(/(^|-)([a-z0-9])/g, (_, __, letter: string) => letter.toUpperCase());
      alarm(`DeadLetters${id}`, {
        alarmName: `dlq-${dlq.name}`,
        alarmDescription: `Messages in the ${dlq.name} dead-letter queue: ${dlq.purpose}.`,
        metric: dlq.queue.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, statistic: 'Maximum' }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
      });
    }

    // A consumer that stopped (or cannot keep up) shows as messages waiting, before any fails.
    for (const work of props.workQueues) {
      alarm(`QueueAge${work.node.id}`, {
        alarmName: `queue-age-${work.name}`,
        alarmDescription: `The oldest message in ${work.name} (${work.purpose}) has waited 15 minutes: its consumer is failing, throttled or stopped.`,
        metric: work.queue.metricApproximateAgeOfOldestMessage({ period: FIVE_MINUTES, statistic: 'Maximum' }),
        threshold: 15 * 60,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
      });
    }

    const throttleEvents: Record<string, IMetric> = {};
    const dynamo = (metricName: string, index?: string) =>
      new Metric({
        namespace: 'AWS/DynamoDB',
        metricName,
        dimensionsMap: { TableName: props.table.tableName, ...(index && { GlobalSecondaryIndexName: index }) },
        period: FIVE_MINUTES,
        statistic: 'Sum',
      });
    throttleEvents.tableReads = dynamo('ReadThrottleEvents');
    throttleEvents.tableWrites = dynamo('WriteThrottleEvents');
    // Both global indexes: API keys by account (gsi1) and the sharded in-flight/outbox index (gsi2).
    throttleEvents.gsi1Reads = dynamo('ReadThrottleEvents', TABLE_DEFINITION.gsi1.indexName);
    throttleEvents.gsi1Writes = dynamo('WriteThrottleEvents', TABLE_DEFINITION.gsi1.indexName);
    throttleEvents.gsi2Reads = dynamo('ReadThrottleEvents', TABLE_DEFINITION.gsi2.indexName);
    throttleEvents.gsi2Writes = dynamo('WriteThrottleEvents', TABLE_DEFINITION.gsi2.indexName);
    alarm('DynamoDbThrottles', {
      alarmName: 'dynamodb-throttles',
      alarmDescription: 'DynamoDB throttled reads or writes on the table or a global index (hot key?).',
      metric: new MathExpression({
        expression: 'FILL(tableReads, 0) + FILL(tableWrites, 0) + FILL(gsi1Reads, 0) + FILL(gsi1Writes, 0) + FILL(gsi2Reads, 0) + FILL(gsi2Writes, 0)',
        usingMetrics: throttleEvents,
        period: FIVE_MINUTES,
        label: 'throttle events',
      }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
    });
  }
}

/**
 * A topic for `-c alarmEmail=...`. Encrypted with a key of its own: CloudWatch cannot publish
 * to a topic under the AWS-managed SNS key, so this key lets the CloudWatch service use it.
 */
function emailTopic(scope: Construct, stage: string, emails: readonly string[]): Topic {
  const key = new Key(scope, 'TopicKey', {
    description: `vidgen ${stage}: encrypts the alarm topic; CloudWatch may use it to publish`,
    enableKeyRotation: true,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  key.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
  const topic = new Topic(scope, 'AlarmTopic', {
    displayName: `vidgen ${stage} alarms`,
    masterKey: key,
    enforceSSL: true,
  });
  for (const email of emails) topic.addSubscription(new EmailSubscription(email));
  return topic;
}
