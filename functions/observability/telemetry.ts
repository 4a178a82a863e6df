import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { MetricUnit as Unit } from '@aws-lambda-powertools/metrics/types';
import type { BusinessEvent, Telemetry } from '#domain/shared/telemetry';
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
  count: (event, options = {}) => {
    const { value = 1, model, provider, kind } = options;
    // Per provider (and kind) apart from per model, so each keeps a small set of dimension values.
    if (provider !== undefined) record(event, MetricUnit.Count, value, { provider, ...(kind !== undefined && { kind }) }, false);
    record(event, MetricUnit.Count, value, model ? { model } : {});
  },
  providerLatency: (milliseconds, operation, provider) => {
    record('ProviderLatency', MetricUnit.Milliseconds, Math.round(milliseconds), { operation });
    if (provider !== undefined) record('ProviderLatency', MetricUnit.Milliseconds, Math.round(milliseconds), { operation, provider }, false);
  },
};

function record(
  name: BusinessEvent | 'ProviderLatency',
  unit: Unit,
  value: number,
  breakdown: Record<string, string>,
  /** Also the service-wide figure (once per event, even when it is broken down twice). */
  serviceWide = true,
): void {
  if (prettyLogs()) {
    logger.debug(`metric ${name}`, { value, ...breakdown });
    return;
  }
  if (serviceWide) metrics.addMetric(name, unit, value);
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
