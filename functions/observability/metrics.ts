import { Metrics } from '@aws-lambda-powertools/metrics';
import { logger } from './logger';

const EMPTY_FLUSH_NOTICE = 'No application metrics to publish';

/**
 * Powertools Metrics: CloudWatch embedded-metric-format lines, namespace VidGen, dimension
 * `service` (vidgen-<stage>), flushed once per invocation by the logMetrics middleware. Most
 * invocations count nothing (GET /credits), and Powertools would warn about each: only that
 * notice is dropped, its other warnings go to our logger.
 */
export const metrics = new Metrics({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE || 'VidGen',
  serviceName: process.env.POWERTOOLS_SERVICE_NAME || 'vidgen-local',
  logger: {
    debug: (...args: unknown[]) => logger.debug(String(args[0])),
    info: (...args: unknown[]) => logger.info(String(args[0])),
    warn: (...args: unknown[]) => {
      if (!String(args[0]).startsWith(EMPTY_FLUSH_NOTICE)) logger.warn(String(args[0]));
    },
    error: (...args: unknown[]) => logger.error(String(args[0])),
  },
});
