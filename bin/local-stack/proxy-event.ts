import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { headerValue } from '#http/headers';
import { BINARY_MEDIA_TYPES, type Route } from '#http/routes/index';

/**
 * Turns a Node HTTP request into the events API Gateway (REST, Lambda proxy integration) would
 * hand our functions: the REQUEST authorizer event and the proxy event.
 */
const LOCAL_ACCOUNT = '000000000000';
const LOCAL_API_ID = 'local';
const LOCAL_STAGE = 'local';

export interface IncomingCall {
  method: string;
  path: string;
  headers: Record<string, string>;
  multiValueHeaders: Record<string, string[]>;
  query: Record<string, string> | null;
  multiValueQuery: Record<string, string[]> | null;
  body: Buffer;
  sourceIp: string;
  requestId: string;
}

export function readCall(req: IncomingMessage, body: Buffer): IncomingCall {
  const url = new URL(req.url ?? '/', 'http://localhost');
  // rawHeaders keeps the client's casing, as API Gateway does; handlers must not assume lowercase.
  // Null-prototype maps: a header or query named __proto__, constructor or toString is just a name.
  const headers = nameMap<string>();
  const multiValueHeaders = nameMap<string[]>();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    const value = req.rawHeaders[i + 1]!;
    headers[name] = value;
    (multiValueHeaders[name] ??= []).push(value);
  }
  const query = nameMap<string>();
  const multiValueQuery = nameMap<string[]>();
  for (const [name, value] of url.searchParams) {
    query[name] = value;
    (multiValueQuery[name] ??= []).push(value);
  }
  const hasQuery = Object.keys(query).length > 0;
  return {
    method: (req.method ?? 'GET').toUpperCase(),
    path: safeDecodeURI(url.pathname),
    headers,
    multiValueHeaders,
    query: hasQuery ? query : null,
    multiValueQuery: hasQuery ? multiValueQuery : null,
    body,
    sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
    requestId: randomUUID(),
  };
}

/** A map keyed by client-chosen names, with no inherited keys for those names to collide with. */
function nameMap<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

export function headerOf(call: IncomingCall, name: string): string | undefined {
  return headerValue(call, name);
}

export function methodArn(route: Route): string {
  return `arn:aws:execute-api:local:${LOCAL_ACCOUNT}:${LOCAL_API_ID}/${LOCAL_STAGE}/${route.method}${route.path}`;
}

function requestContext(call: IncomingCall, route: Route) {
  return {
    accountId: LOCAL_ACCOUNT,
    apiId: LOCAL_API_ID,
    stage: LOCAL_STAGE,
    protocol: 'HTTP/1.1',
    httpMethod: call.method,
    path: `/${LOCAL_STAGE}${call.path}`,
    resourceId: route.handler,
    resourcePath: route.path,
    requestId: call.requestId,
    requestTimeEpoch: Date.now(),
    identity: {
      sourceIp: call.sourceIp,
      userAgent: headerOf(call, 'user-agent') ?? null,
    },
  };
}

/** What the REQUEST authorizer event and the proxy event both carry. */
function requestFields(call: IncomingCall, route: Route, pathParameters: Record<string, string> | null) {
  return {
    resource: route.path,
    path: call.path,
    httpMethod: call.method,
    headers: call.headers,
    multiValueHeaders: call.multiValueHeaders,
    queryStringParameters: call.query,
    multiValueQueryStringParameters: call.multiValueQuery,
    pathParameters,
    stageVariables: null,
  };
}

export function toAuthorizerEvent(
  call: IncomingCall,
  route: Route,
  pathParameters: Record<string, string> | null,
): APIGatewayRequestAuthorizerEvent {
  return {
    type: 'REQUEST',
    methodArn: methodArn(route),
    ...requestFields(call, route, pathParameters),
    requestContext: requestContext(call, route),
  } as unknown as APIGatewayRequestAuthorizerEvent;
}

function isBinary(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return BINARY_MEDIA_TYPES.some((pattern) =>
    pattern.endsWith('/*') ? type.startsWith(pattern.slice(0, -1)) : type === pattern,
  );
}

export function toProxyEvent(
  call: IncomingCall,
  route: Route,
  pathParameters: Record<string, string> | null,
  authorizerContext: (Record<string, string> & { principalId: string }) | undefined,
): APIGatewayProxyEvent {
  const binary = isBinary(headerOf(call, 'content-type'));
  const hasBody = call.body.length > 0;
  return {
    ...requestFields(call, route, pathParameters),
    requestContext: { ...requestContext(call, route), authorizer: authorizerContext ?? null },
    body: hasBody ? call.body.toString(binary ? 'base64' : 'utf8') : null,
    isBase64Encoded: hasBody && binary,
  } as unknown as APIGatewayProxyEvent;
}

/** API Gateway decodes the path; a malformed escape stays as sent (and matches no route). */
function safeDecodeURI(path: string): string {
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}
