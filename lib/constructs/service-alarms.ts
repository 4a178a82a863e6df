import { Duration } from 'aws-cdk-lib';
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
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, type ILogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { TABLE_DEFINITION } from '../../functions/adapters/dynamodb/table-definition';

export interface ServiceAlarmsProps {
  stage: string;
  api: RestApi;
  /** The API's JSON access log (errorType = $context.error.responseType). */
  accessLogs: ILogGroup;
  /** Every function, by handler name. */
  functions: ReadonlyMap<string, IFunction>;
  sweeper: IFunction;
  copyWorker: IFunction;
  table: ITableV2;
  /** SNS topic for alarm and OK notifications; alarms still show in the console without one. */
  topicArn?: string;
  thresholds: { serverErrorRate: number; latencyP99Ms: number };
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

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    const action = props.topicArn ? new SnsAction(Topic.fromTopicArn(this, 'Topic', props.topicArn)) : undefined;
    const alarm = (alarmId: string, options: ConstructorParameters<typeof Alarm>[2]) => {
      const created = new Alarm(this, alarmId, {
        treatMissingData: TreatMissingData.NOT_BREACHING,
        ...options,
        alarmName: `vidgen-${props.stage}-${options.alarmName}`,
      });
      if (action) {
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
      alarm(`Throttles${handler.replace(/[^a-zA-Z0-9]/g, '')}`, {
        alarmName: `throttles-${handler}`,
        alarmDescription: `Lambda throttled ${handler} (account concurrency exhausted?).`,
        metric: fn.metricThrottles({ period: FIVE_MINUTES, statistic: 'Sum' }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
      });
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
    throttleEvents.gsiReads = dynamo('ReadThrottleEvents', TABLE_DEFINITION.gsi1.indexName);
    throttleEvents.gsiWrites = dynamo('WriteThrottleEvents', TABLE_DEFINITION.gsi1.indexName);
    alarm('DynamoDbThrottles', {
      alarmName: 'dynamodb-throttles',
      alarmDescription: 'DynamoDB throttled reads or writes on the table or its global index (hot key?).',
      metric: new MathExpression({
        expression: 'FILL(tableReads, 0) + FILL(tableWrites, 0) + FILL(gsiReads, 0) + FILL(gsiWrites, 0)',
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
