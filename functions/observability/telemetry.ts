import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { MetricUnit as Unit } from '@aws-lambda-powertools/metrics/types';
import type { BusinessEvent, Telemetry } from '#domain/telemetry';
import { prettyLogs } from './log-format';
import { logger } from './logger';
import { metrics } from './metrics';

/**
 * The use cases' Telemetry port on Powertools. Each figure goes out with the `service`
 * dimension only (what alarms and the dashboard use) and, for a breakdown, once more with
 * `service` and `model` (task counts) or `operation` (provider latency), as a one-metric EMF
 * line of its own.
 * Off Lambda (LOG_FORMAT=pretty) nothing is recorded: the log lines say the same, and with
 * LOG_LEVEL=DEBUG each count prints as a debug line.
 */
export const powertoolsTelemetry: Telemetry = {
  info: (message, fields) => logger.info(message, fields ?? {}),
  warn: (message, fields) => logger.warn(message, fields ?? {}),
  error: (message, error, fields) => logger.error(message, { ...fields, error: asError(error) }),
  count: (event, options = {}) =>
    record(event, MetricUnit.Count, options.value ?? 1, options.model ? { model: options.model } : {}),
  providerLatency: (milliseconds, operation) =>
    record('ProviderLatency', MetricUnit.Milliseconds, Math.round(milliseconds), { operation }),
};

function record(
  name: BusinessEvent | 'ProviderLatency',
  unit: Unit,
  value: number,
  breakdown: Record<string, string>,
): void {
  if (prettyLogs()) {
    logger.debug(`metric ${name}`, { value, ...breakdown });
    return;
  }
  metrics.addMetric(name, unit, value);
  if (Object.keys(breakdown).length > 0) {
    const single = metrics.singleMetric();
    for (const [dimension, label] of Object.entries(breakdown)) single.addDimension(dimension, label);
    single.addMetric(name, unit, value);
  }
}

/** Logs keep the stack of a real Error; anything else thrown is wrapped so it has one. */
function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
