import type { Duration } from 'aws-cdk-lib';
import { MathExpression, Metric } from 'aws-cdk-lib/aws-cloudwatch';

/**
 * The business metrics the functions publish through Powertools Metrics (agreed names:
 * namespace `VidGen`, service `vidgen-<stage>`). Alarms and the dashboard use the service
 * dimension only, so a per-model breakdown the functions may add never splits an alarm.
 */
export const METRIC_NAMESPACE = 'VidGen';
export const serviceName = (stage: string) => `vidgen-${stage}`;

export type BusinessMetricName =
  | 'TaskStarted'
  | 'TaskCompleted'
  | 'TaskFailed'
  | 'TaskRefunded'
  | 'TaskCanceled'
  | 'ProviderLatency'
  | 'ProviderError'
  | 'ProviderSubmission'
  | 'ProviderFailure'
  | 'ProviderFailover'
  | 'ProviderSkipped'
  | 'CircuitOpened'
  | 'SweeperTasksExamined'
  | 'ReversalShortfall'
  | 'InvitationMailFailed';

export function businessMetric(
  stage: string,
  metricName: BusinessMetricName,
  options: { period: Duration; statistic: string; label?: string },
): Metric {
  return new Metric({
    namespace: METRIC_NAMESPACE,
    metricName,
    dimensionsMap: { service: serviceName(stage) },
    ...options,
  });
}

/**
 * One line per provider (and per failure kind) of a metric the functions also publish with a
 * `provider` dimension: a search, so a provider added later shows without a redeploy.
 */
export function perProvider(stage: string, metricName: BusinessMetricName, options: { period: Duration; statistic: string; extraDimension?: string }): MathExpression {
  const dimensions = ['service', ...(options.extraDimension ? [options.extraDimension] : []), 'provider'].join(',');
  return new MathExpression({
    expression: `SEARCH('{${METRIC_NAMESPACE},${dimensions}} MetricName="${metricName}" service="${serviceName(stage)}"', '${options.statistic}', ${options.period.toSeconds()})`,
    usingMetrics: {},
    period: options.period,
    label: '',
  });
}
