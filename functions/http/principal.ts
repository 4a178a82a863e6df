import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { Principal } from '../domain/authenticate';
import { UnauthorizedError } from '../domain/errors';

/**
 * What the authorizer put in its context, as the handler receives it. API Gateway (REST)
 * passes context values as strings, so numbers are parsed here.
 */
export function principalFrom(event: APIGatewayProxyEvent): Principal {
  const context = event.requestContext?.authorizer ?? {};
  const accountId = context.accountId;
  const keyId = context.keyId;
  const rateLimit = Number(context.rateLimit);
  if (typeof accountId !== 'string' || typeof keyId !== 'string' || !Number.isInteger(rateLimit)) {
    // Only reachable if a route is deployed without the authorizer.
    throw new UnauthorizedError();
  }
  return { accountId, keyId, rateLimit };
}

/** The authorizer's context, as strings, the way API Gateway hands it to the integration. */
export function authorizerContext(principal: Principal): Record<string, string> {
  return {
    accountId: principal.accountId,
    keyId: principal.keyId,
    rateLimit: String(principal.rateLimit),
  };
}
