import { errorEnvelope, type Envelope } from './envelope';
import { GATEWAY_MESSAGES, statusOf, type ErrorCode } from './errors';

/**
 * Answers the platform gives before a handler runs (API Gateway gateway responses on AWS, the
 * local server locally), so they too arrive in the envelope.
 */
export interface GatewayResponse {
  status: number;
  body: Envelope;
}

const gateway = (code: ErrorCode, message: string): GatewayResponse => ({
  status: statusOf(code),
  body: errorEnvelope(code, message),
});

export const GATEWAY_RESPONSES = {
  unauthorized: gateway('unauthorized', GATEWAY_MESSAGES.unauthorized),
  /** The authorizer denies (rather than refuses) an expired key, so the gateway can say why. */
  expired: gateway('unauthorized', GATEWAY_MESSAGES.expired),
  notFound: gateway('not_found', GATEWAY_MESSAGES.notFound),
  payloadTooLarge: gateway('payload_too_large', GATEWAY_MESSAGES.payloadTooLarge),
  /** A method a route refuses (`Route.refusedMethods`), sent with `Allow: <the route's method>`. */
  methodNotAllowed: gateway('method_not_allowed', GATEWAY_MESSAGES.methodNotAllowed),
  /** Whatever else the gateway refuses as a client error (API Gateway's DEFAULT_4XX). */
  badRequest: gateway('validation_error', GATEWAY_MESSAGES.badRequest),
  throttled: gateway('rate_limit_exceeded', GATEWAY_MESSAGES.throttled),
  internal: gateway('internal_error', GATEWAY_MESSAGES.internal),
} as const;
