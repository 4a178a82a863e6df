import type { Duration } from 'aws-cdk-lib';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';

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
  | 'SweeperTasksExamined'
  | 'ReversalShortfall';

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
