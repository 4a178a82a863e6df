import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import { traceClientsWith, type TracingMiddleware } from './client-tracing';

/**
 * Powertools Tracer, for the functions that import this module: a subsegment per invocation
 * (annotated with cold start and service) and one per AWS SDK call. Off Lambda it turns itself
 * off (no AWS_EXECUTION_ENV), so the local stack and tests trace nothing.
 */
export const tracer = new Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME || 'vidgen-local' });

traceClientsWith((client) => tracer.captureAWSv3Client(client));

/** The handler's middleware. Responses stay out of traces: they hold customer data. */
export function tracing(): TracingMiddleware {
  return captureLambdaHandler(tracer, { captureResponse: false }) as TracingMiddleware;
}
