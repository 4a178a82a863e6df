import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { callerDependencies } from '#app-context/identity';
import { authenticateCaller } from '#domain/accounts/authenticate-caller';
import { KeyExpiredError, UnauthorizedError } from '#domain/shared/errors';
import { authorizerContext } from '#http/principal';
import { headerValue } from '#http/headers';
import { observe } from '#observability/middleware';

/** This exact message is API Gateway's signal for a 401 (the UNAUTHORIZED gateway response). */
const UNAUTHORIZED = 'Unauthorized';

/**
 * REQUEST authorizer for every route: an API key, or an account holder's access token (a
 * session). API Gateway caches its answer per Authorization header, so the Allow covers the
 * whole API, not just the method that asked (otherwise a cached answer would deny the same key
 * on the next route), and a session's answer lists every account the holder belongs to, never
 * a chosen account or a mode: the request's Vidgen-Account and Vidgen-Mode are applied after
 * the gateway (functions/http/principal.ts). The cache key stays the Authorization header alone
 * (an identity source must be present on every request, or API Gateway answers 401 without
 * asking: docs/decisions.md), so a removed member keeps their list for at most one TTL.
 */
export const handler = observe(authorize, {
  requestKeys: (event) => ({ request_id: event.requestContext?.requestId }),
  isExpected: (error) => error.message === UNAUTHORIZED,
});

async function authorize(event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  try {
    const principal = await authenticateCaller(callerDependencies(), headerValue(event, 'authorization'));
    return {
      // A session's answer serves every account the holder belongs to: it names the holder.
      principalId: principal.kind === 'session' ? principal.holderId : principal.partitionId,
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: wholeApiArn(event.methodArn) }],
      },
      context: authorizerContext(principal),
    };
  } catch (error) {
    // A Deny is API Gateway's ACCESS_DENIED, whose gateway response says the key expired (a
    // thrown "Unauthorized" can only ever give the one generic message).
    if (error instanceof KeyExpiredError) return expiredKey(event.methodArn);
    if (error instanceof UnauthorizedError) throw new Error(UNAUTHORIZED, { cause: error });
    throw error;
  }
}

/** Deny the whole API, as an Allow covers it: the answer is cached for the key, not the route. */
function expiredKey(methodArn: string): APIGatewayAuthorizerResult {
  return {
    principalId: 'expired',
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Deny', Resource: wholeApiArn(methodArn) }],
    },
  };
}

/** arn:aws:execute-api:region:account:api/stage/METHOD/path -> arn:...:api/stage/* */
export function wholeApiArn(methodArn: string): string {
  const [apiArn, stage] = methodArn.split('/');
  return `${apiArn}/${stage}/*`;
}
