import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { Principal } from '#domain/principal';
import { createMcpServer } from './server';
import { useCaseBackend } from './use-case-backend';

/**
 * How long wait_for_task may hold a request here: API Gateway ends an integration at 29 s, so
 * the hosted endpoint returns from a longer wait at 25 s (the tool says to call it again).
 */
export const HOSTED_MAX_WAIT_SECONDS = 25;
const POLL_INTERVAL_MS = 1000;

/**
 * One MCP request on Lambda, stateless: a fresh server and transport per invocation, no session.
 * The answer is plain JSON, except for a request that asked for progress: then an SSE stream
 * (progress notifications, then the result), which Lambda's proxy integration returns buffered
 * in one body: still a valid stream for a client, its events arriving together at the end.
 */
export async function mcpResponse(event: APIGatewayProxyEvent, principal: Principal): Promise<APIGatewayProxyResult> {
  const body = event.body === null ? '' : event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  const parsed = parseJson(body);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: !asksForProgress(parsed),
  });
  const server = createMcpServer(useCaseBackend(principal), { maxWaitSeconds: HOSTED_MAX_WAIT_SECONDS, pollIntervalMs: POLL_INTERVAL_MS });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(toRequest(event, body), parsed === undefined ? {} : { parsedBody: parsed });
    const text = await response.text();
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    return { statusCode: response.status, headers, body: text };
  } finally {
    await server.close();
  }
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    // The transport answers the parse error itself.
    return undefined;
  }
}

/** Whether a message (or one in a batch) carries a progress token. */
function asksForProgress(parsed: unknown): boolean {
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  return messages.some((message) => (message as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params?._meta?.progressToken !== undefined);
}

function toRequest(event: APIGatewayProxyEvent, body: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers ?? {})) if (value !== undefined) headers.set(name, value);
  const host = headers.get('host') ?? 'localhost';
  return new Request(`https://${host}${event.path}`, { method: event.httpMethod, headers, ...(event.httpMethod === 'POST' && { body }) });
}
