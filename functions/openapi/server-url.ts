import type { APIGatewayProxyEvent } from 'aws-lambda';
import { headerValue } from '../http/headers';
import { API_PREFIX } from '../http/routes';

/**
 * The API's base URL (ending in /api/v1) as the client reached it, so that the served document
 * and its curl examples point where the reader already is. Undefined when it cannot be told.
 *
 * - On API Gateway: `requestContext.domainName` is the host the client used (the execute-api
 *   host or the custom domain), and `requestContext.path` is the path the client used, so the
 *   part before `event.path` is the stage (`/prod` on the execute-api host, nothing behind a
 *   custom domain's base path mapping). Always https.
 * - Elsewhere (the local stack, which sends no domainName): the Host header, with
 *   X-Forwarded-Proto or else http, and no prefix.
 */
const HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;
const PREFIX = /^(?:\/[A-Za-z0-9._~-]+)*$/;

type ServerUrlEvent = Pick<APIGatewayProxyEvent, 'headers' | 'path'> & {
  requestContext?: { domainName?: string | null; path?: string | null } | null;
};

export function serverUrlOf(event: ServerUrlEvent): string | undefined {
  const context = event.requestContext ?? {};
  const domainName = context.domainName ?? undefined;
  if (domainName && HOST.test(domainName)) {
    const fullPath = context.path ?? '';
    const prefix = event.path && fullPath.endsWith(event.path) ? fullPath.slice(0, fullPath.length - event.path.length) : '';
    return PREFIX.test(prefix) ? `https://${domainName}${prefix}${API_PREFIX}` : undefined;
  }
  const host = headerValue(event, 'host');
  if (!host || !HOST.test(host)) return undefined;
  const forwarded = headerValue(event, 'x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  const scheme = forwarded === 'https' || forwarded === 'http' ? forwarded : 'http';
  return `${scheme}://${host}${API_PREFIX}`;
}
