import { Aws, Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  type IWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { DeadLetterQueue } from './dead-letter-queue';
import type { ServiceAlarms } from './service-alarms';
import type { WorkQueue } from './work-queue';
import { businessMetric, perProvider } from './service-metrics';

export interface ServiceDashboardProps {
  stage: string;
  api: RestApi;
  functions: ReadonlyMap<string, IFunction>;
  sweeper: IFunction;
  table: ITableV2;
  deadLetterQueues: readonly DeadLetterQueue[];
  workQueues: readonly WorkQueue[];
  alarms: ServiceAlarms;
}

const FIVE_MINUTES = Duration.minutes(5);

/**
 * The service's health on one page: every alarm's state first, then traffic, tasks, the
 * provider, functions, the sweeper and the queues. Dashboards are global to the account, so
 * the name carries the region: `vidgen-<stage>-<region>`.
 */
export class ServiceDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);
    const { stage } = props;
    const sum = { period: FIVE_MINUTES, statistic: 'Sum' };
    const task = (name: 'TaskStarted' | 'TaskCompleted' | 'TaskFailed' | 'TaskRefunded' | 'TaskCanceled') =>
      businessMetric(stage, name, { ...sum, label: name.replace('Task', '').toLowerCase() });
    const functions = [...props.functions];

    const rows: IWidget[][] = [
      [
        new AlarmStatusWidget({
          title: 'Alarms',
          alarms: props.alarms.alarms,
          width: 24,
          height: 6,
        }),
      ],
      [
        new GraphWidget({
          title: 'API requests and errors (5 min)',
          left: [
            props.api.metricCount({ ...sum, label: 'requests' }),
            props.api.metricClientError({ ...sum, label: '4xx' }),
            props.api.metricServerError({ ...sum, label: '5xx' }),
          ],
          width: 12,
        }),
        new GraphWidget({
          title: 'API latency (ms)',
          left: [
            props.api.metricLatency({ period: FIVE_MINUTES, statistic: 'p50', label: 'p50' }),
            props.api.metricLatency({ period: FIVE_MINUTES, statistic: 'p99', label: 'p99' }),
          ],
          width: 12,
        }),
      ],
      [
        new GraphWidget({
          title: 'Tasks (5 min)',
          left: [task('TaskStarted'), task('TaskCompleted'), task('TaskFailed'), task('TaskRefunded'), task('TaskCanceled')],
          width: 12,
        }),
        new GraphWidget({
          title: 'Refund ratio (hourly)',
          left: [
            new MathExpression({
              expression: 'IF(FILL(started, 0) > 0, FILL(refunded, 0) / started, 0)',
              usingMetrics: {
                started: businessMetric(stage, 'TaskStarted', { period: Duration.hours(1), statistic: 'Sum' }),
                refunded: businessMetric(stage, 'TaskRefunded', { period: Duration.hours(1), statistic: 'Sum' }),
              },
              period: Duration.hours(1),
              label: 'refunded / started',
            }),
          ],
          leftYAxis: { min: 0, max: 1 },
          width: 12,
        }),
      ],
      [
        new GraphWidget({
          title: 'Provider latency (ms)',
          left: [
            businessMetric(stage, 'ProviderLatency', { period: FIVE_MINUTES, statistic: 'p50', label: 'p50' }),
            businessMetric(stage, 'ProviderLatency', { period: FIVE_MINUTES, statistic: 'p99', label: 'p99' }),
          ],
          width: 12,
        }),
        new GraphWidget({
          title: 'Provider errors (5 min)',
          left: [businessMetric(stage, 'ProviderError', { ...sum, label: 'errors' })],
          width: 12,
        }),
      ],
      [
        new GraphWidget({
          title: 'Creates by provider (5 min)',
          left: [perProvider(stage, 'ProviderSubmission', { period: FIVE_MINUTES, statistic: 'Sum' })],
          width: 8,
        }),
        new GraphWidget({
          title: 'Failed creates by provider and kind (5 min)',
          left: [perProvider(stage, 'ProviderFailure', { period: FIVE_MINUTES, statistic: 'Sum', extraDimension: 'kind' })],
          width: 8,
        }),
        new GraphWidget({
          title: 'Failovers, skipped routes, circuits opened (5 min)',
          left: [
            perProvider(stage, 'ProviderFailover', { period: FIVE_MINUTES, statistic: 'Sum' }),
            perProvider(stage, 'ProviderSkipped', { period: FIVE_MINUTES, statistic: 'Sum' }),
            perProvider(stage, 'CircuitOpened', { period: FIVE_MINUTES, statistic: 'Sum' }),
          ],
          width: 8,
        }),
      ],
      [
        new GraphWidget({
          title: 'Time to accept by provider, p95 (ms; failovers included)',
          left: [perProvider(stage, 'ProviderLatency', { period: FIVE_MINUTES, statistic: 'p95', extraDimension: 'operation' })],
          width: 24,
        }),
      ],
      [
        new GraphWidget({
          title: 'Lambda errors by function (5 min)',
          left: functions.map(([handler, fn]) => fn.metricErrors({ ...sum, label: handler })),
          width: 12,
        }),
        new GraphWidget({
          title: 'Lambda throttles by function (5 min)',
          left: functions.map(([handler, fn]) => fn.metricThrottles({ ...sum, label: handler })),
          width: 12,
        }),
      ],
      [
        new GraphWidget({
          title: 'Sweeper (5 min)',
          left: [props.sweeper.metricInvocations({ ...sum, label: 'runs' }), props.sweeper.metricErrors({ ...sum, label: 'failed runs' })],
          right: [businessMetric(stage, 'SweeperTasksExamined', { ...sum, label: 'tasks examined' })],
          width: 8,
        }),
        new GraphWidget({
          title: 'Queues: dead letters (left), oldest message age in s (right)',
          left: props.deadLetterQueues.map((dlq) =>
            dlq.queue.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, statistic: 'Maximum', label: dlq.name }),
          ),
          right: props.workQueues.map((work) =>
            work.queue.metricApproximateAgeOfOldestMessage({ period: FIVE_MINUTES, statistic: 'Maximum', label: work.name }),
          ),
          width: 8,
        }),
        new GraphWidget({
          title: 'DynamoDB (5 min)',
          left: (['ConsumedReadCapacityUnits', 'ConsumedWriteCapacityUnits'] as const).map(
            (metricName) =>
              new Metric({ namespace: 'AWS/DynamoDB', metricName, dimensionsMap: { TableName: props.table.tableName }, ...sum }),
          ),
          right: (['ReadThrottleEvents', 'WriteThrottleEvents'] as const).map(
            (metricName) =>
              new Metric({ namespace: 'AWS/DynamoDB', metricName, dimensionsMap: { TableName: props.table.tableName }, ...sum }),
          ),
          width: 8,
        }),
      ],
    ];

    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: `vidgen-${stage}-${Aws.REGION}`,
      defaultInterval: Duration.hours(6),
      widgets: rows,
    });
  }
}
