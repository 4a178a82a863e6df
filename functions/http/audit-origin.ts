import type { APIGatewayProxyEvent } from 'aws-lambda';
import { actorOf, cleanOrigin, type AuditOrigin, type AuditStamp } from '#domain/shared/audit';
import type { Principal } from '#domain/accounts/principal';
import { headerValue } from './headers';

/**
 * Where a change came from, for its audit entry: the caller's address as API Gateway saw it
 * (`requestContext.identity.sourceIp`; through the console's CDN that is an edge address, see
 * docs/decisions.md) and its `User-Agent`, cleaned and cut to 256 characters.
 */
export function originOf(event: Pick<APIGatewayProxyEvent, 'headers' | 'requestContext'>): AuditOrigin {
  const ip = event.requestContext?.identity?.sourceIp;
  return cleanOrigin({ ip: typeof ip === 'string' && ip !== '' ? ip : null, userAgent: headerValue(event, 'user-agent') ?? null });
}

/** Who made a request's changes, and from where. */
export function stampOf(principal: Principal, event: Pick<APIGatewayProxyEvent, 'headers' | 'requestContext'>): AuditStamp {
  return { actor: actorOf(principal), origin: originOf(event) };
}
