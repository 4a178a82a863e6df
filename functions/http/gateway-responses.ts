import { errorEnvelope, type Envelope, type ErrorCode } from './envelope';

/**
 * Answers the platform gives before a handler runs (API Gateway gateway responses on AWS, the
 * local server locally), so they too arrive in the envelope.
 */
export interface GatewayResponse {
  status: number;
  body: Envelope;
}

const gateway = (status: number, code: ErrorCode, message: string): GatewayResponse => ({
  status,
  body: errorEnvelope(code, message),
});

export const GATEWAY_RESPONSES = {
  unauthorized: gateway(401, 'unauthorized', 'Missing or invalid API key. Send Authorization: Bearer <API_KEY>.'),
  notFound: gateway(404, 'not_found', 'No such route. See the API reference for the available endpoints.'),
  payloadTooLarge: gateway(413, 'payload_too_large', 'The request body is too large.'),
  /** Whatever else the gateway refuses as a client error (API Gateway's DEFAULT_4XX). */
  badRequest: gateway(400, 'validation_error', 'The request could not be processed. Check the method, headers and body.'),
  throttled: gateway(429, 'rate_limit_exceeded', 'Too many requests.'),
  internal: gateway(500, 'internal_error', 'Something went wrong on our side.'),
} as const;
