import type { ResponseConfig, RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { ErrorStatus } from '#contract/errors';
import type { KeyScope } from '#domain/accounts/api-key';
import type { HttpSpec } from '#spec/function-spec';
import { API_PREFIX } from './routes/prefix';

/**
 * What the local server and API Gateway need to send a request to its function: read off the
 * function's spec (functions/handlers/<name>.spec.ts, `toApiRoute`), never written by hand.
 */
export interface Route {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** API Gateway resource path, with {name} for path parameters. */
  path: string;
  /** The file name under functions/handlers/ (each exports `handler`). */
  handler: string;
  /** Who may call it (one kind, or several a request may present any of). */
  callers: Caller | readonly Caller[];
  /** The scope an API key needs for this route (CONTRACT.md, "Self-serve API keys"): its spec's capability, on routes a key may call. */
  scope?: KeyScope;
  /**
   * Its answer streams (API Gateway's STREAM transfer mode): the client reads each part as the
   * function writes it, and the integration may run past the gateway's 29 s (up to
   * `STREAMED_ROUTE_TIMEOUT_SECONDS`). Its handler is a `streamedApiHandler`.
   */
  streaming?: true;
  /**
   * Other methods on this path that the gateway itself answers with 405 `method_not_allowed` and
   * `Allow: <method>` (no function, no key checked), where any other method is an unknown route
   * (404). Only the MCP endpoint has them: its transport, Streamable HTTP, has a stateless server
   * answer GET (no event stream) and DELETE (no session) so (CONTRACT.md, "MCP transport"); a
   * client takes a 404 there for "session terminated".
   */
  refusedMethods?: readonly Route['method'][];
}

/** How long a streamed route's integration and function may run: MCP's longest wait (50 s) and its start. */
export const STREAMED_ROUTE_TIMEOUT_SECONDS = 60;

/**
 * A kind of caller. `apiKey`: a developer's `Authorization: Bearer <key>`. `session`: an account
 * holder signed in to the console (an access token from the identity provider); a route whose
 * spec names only `session` refuses API keys with 403 `forbidden` (functions/http/access.ts).
 * Both pass the same authorizer. `public`: anyone; the route has nothing to guard (the API
 * reference) or checks its own credential (a provider's signature).
 */
export type Caller = 'apiKey' | 'session' | 'public';

/** How the gateway admits a route's callers: nobody checked, or the authorizer (keys and sessions) first. */
export type GatewayAccess = 'public' | 'authorizer';

function callersOf(route: Route): readonly Caller[] {
  return typeof route.callers === 'string' ? [route.callers] : route.callers;
}

/**
 * The one reading of a route's `callers` that the local gateway, the CDK REST API and the
 * OpenAPI document share. Throws, naming the route, for a declaration they cannot build.
 */
export function gatewayAccess(route: Route): GatewayAccess {
  const callers = callersOf(route);
  const name = `${route.method} ${route.path}`;
  if (callers.length === 0) throw new Error(`${name} declares no callers: say 'apiKey', 'public' or 'session'.`);
  if (callers.includes('public')) {
    if (callers.length > 1) throw new Error(`${name} is 'public' and also names other callers: a public route checks no credential, so declare 'public' alone.`);
    return 'public';
  }
  return 'authorizer';
}

/** Whether an API key may call the route (else only a session may: 403 `forbidden` for a key). */
export function acceptsApiKeys(route: Route): boolean {
  return callersOf(route).includes('apiKey');
}

/** A route of the API with its documentation (the function's spec joined with its doc entry). */
export interface ApiRoute extends Route {
  doc: OperationDoc;
}

/**
 * A route's documentation, by its function's name, in its resource's file under
 * functions/http/routes/: prose only, which stays out of the functions' bundles (a spec is in its
 * bundle; this is not).
 */
export interface RouteDoc {
  handler: string;
  doc: OperationDoc;
}

/** The route a spec declares, with its documentation. */
export function toApiRoute(spec: HttpSpec, doc: OperationDoc): ApiRoute {
  const { trigger, access } = spec;
  const callers = access.callers as readonly string[];
  const keyed = callers.includes('apiKey');
  return {
    method: trigger.method,
    path: `${API_PREFIX}${trigger.path}`,
    handler: spec.name,
    callers: callers.includes('public') ? 'public' : keyed ? ['apiKey', 'session'] : 'session',
    ...(keyed && 'capability' in access && { scope: access.capability as KeyScope }),
    ...(trigger.streaming && { streaming: true as const }),
    ...(trigger.refusedMethods && { refusedMethods: trigger.refusedMethods }),
    doc,
  };
}

/** How the API reference describes an operation. */
export interface OperationDoc {
  operationId: string;
  summary: string;
  description: string;
  tag: 'Videos' | 'Images' | 'Models' | 'Uploads' | 'Account' | 'API keys' | 'Teams' | 'Webhooks' | 'Agents' | 'Reference' | 'Internal';
  request?: RouteConfig['request'];
  success: ResponseConfig;
  /** The error statuses this operation answers; their codes come from the contract's error table. */
  errors: ErrorStatus[];
  /** This operation's wording of an error status, where the general one does not fit. */
  errorNotes?: Partial<Record<ErrorStatus, { description?: string; example?: string }>>;
  /** A runnable shell example; `{BASE}` becomes the server URL. Uses $KEY and the ids named in it. */
  curl: string;
}
