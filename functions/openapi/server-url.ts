import type { APIGatewayProxyEvent } from 'aws-lambda';
import { configuredApiBaseUrl } from '#config/service';
// The prefix alone: the route table (and its OpenAPI prose) stays out of the bundles that need a URL.
import { API_PREFIX } from '#http/routes/prefix';

/**
 * The API's base URL (ending in /api/v1) as the client reached it, so that the served document
 * and its curl examples point where the reader already is. Undefined when it cannot be told.
 *
 * - Configured (API_BASE_URL; the local stack sets its own): that.
 * - On API Gateway: `requestContext.domainName` is the host the client used (the execute-api
 *   host or the custom domain), and `requestContext.path` is the path the client used, so the
 *   part before `event.path` is the stage (`/prod` on the execute-api host, nothing behind a
 *   custom domain's base path mapping). Always https.
 * - Never the Host header: the client chooses it, and the document is served with
 *   Cache-Control: public, so a shared cache would hand the attacker's URL to everyone.
 */
const HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;
const PREFIX = /^(?:\/[A-Za-z0-9._~-]+)*$/;

type ServerUrlEvent = Pick<APIGatewayProxyEvent, 'headers' | 'path'> & {
  requestContext?: { domainName?: string | null; path?: string | null } | null;
};

export function serverUrlOf(event: ServerUrlEvent, configured = configuredApiBaseUrl()): string | undefined {
  if (configured) return configured;
  const context = event.requestContext ?? {};
  const domainName = context.domainName ?? undefined;
  if (domainName && HOST.test(domainName)) {
    const fullPath = context.path ?? '';
    const prefix = event.path && fullPath.endsWith(event.path) ? fullPath.slice(0, fullPath.length - event.path.length) : '';
    return PREFIX.test(prefix) ? `https://${domainName}${prefix}${API_PREFIX}` : undefined;
  }
  return undefined;
}
