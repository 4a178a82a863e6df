import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { StreamedResult } from '#http/streamed-response';
import type { Principal } from '#domain/accounts/principal';
import { logger } from '#observability/logger';
import { createMcpServer } from './server';
import { MAX_WAIT_SECONDS } from './tools';
import { useCaseBackend } from './use-case-backend';

/**
 * How long wait_for_task may hold a request here: the contract's longest wait. The route streams
 * (STREAM transfer mode), so the gateway's 29 s does not end it; its integration and function run
 * up to STREAMED_ROUTE_TIMEOUT_SECONDS.
 */
export const HOSTED_MAX_WAIT_SECONDS = MAX_WAIT_SECONDS;
const POLL_INTERVAL_MS = 1000;

/**
 * One MCP request on Lambda, stateless: a fresh server and transport per invocation, no session.
 * The answer is plain JSON, except for a request that asked for progress: then an SSE stream
 * (progress notifications, then the result) that the streamed integration passes on as it is
 * written, so each notification reaches the client while the tool still runs.
 */
export async function mcpResponse(event: APIGatewayProxyEvent, principal: Principal): Promise<StreamedResult> {
  const body = event.body === null ? '' : event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  const parsed = parseJson(body);
  if (Array.isArray(parsed)) return batchRefused();
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: !asksForProgress(parsed),
  });
  const server = createMcpServer(useCaseBackend(principal), { maxWaitSeconds: HOSTED_MAX_WAIT_SECONDS, pollIntervalMs: POLL_INTERVAL_MS });
  await server.connect(transport);
  let response: Response;
  try {
    response = await transport.handleRequest(toRequest(event, body), parsed === undefined ? {} : { parsedBody: parsed });
  } catch (error) {
    await server.close();
    throw error;
  }
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    // A JSON answer is whole once handleRequest returns: no stream to relay.
    const text = await response.text();
    await server.close();
    return { statusCode: response.status, headers, body: text };
  }
  return { statusCode: response.status, headers, body: closingAtTheEnd(response.body!, () => server.close()) };
}

/**
 * A JSON-RPC batch: the SDK would run up to 100 calls for one request, which the rate limit
 * counts once. The protocol's current revision (2025-06-18) has no batching, so one message per
 * request, and each tool call counts (CONTRACT.md, "MCP transport"). Worded as the SDK's
 * transport words its own refusals (-32600, id null, status 400). A new object each time: the
 * middlewares add their headers to it.
 */
function batchRefused(): StreamedResult {
  return {
    statusCode: 400,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Invalid Request: batches are not supported: send one JSON-RPC message per request (the Model Context Protocol has no batching since its 2025-06-18 revision).' },
      id: null,
    }),
  };
}

/**
 * The SSE body, relayed until it ends, fails or its reader gives up (the client left): then the
 * server closes, which aborts a tool still running (a wait stops polling instead of outliving
 * the invocation).
 */
function closingAtTheEnd(body: ReadableStream<Uint8Array>, close: () => Promise<void>): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let closed = false;
  const finish = async () => {
    if (closed) return;
    closed = true;
    await close().catch((error: unknown) => logger.warn('mcp server did not close cleanly', { error: String(error) }));
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (!done) return controller.enqueue(value);
        controller.close();
      } catch (error) {
        controller.error(error);
      }
      await finish();
    },
    async cancel(reason) {
      await finish();
      await reader.cancel(reason).catch(() => undefined);
    },
  });
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    // The transport answers the parse error itself.
    return undefined;
  }
}

/** Whether the message carries a progress token. */
function asksForProgress(parsed: unknown): boolean {
  return (parsed as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params?._meta?.progressToken !== undefined;
}

function toRequest(event: APIGatewayProxyEvent, body: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers ?? {})) if (value !== undefined) headers.set(name, value);
  const host = headers.get('host') ?? 'localhost';
  return new Request(`https://${host}${event.path}`, { method: event.httpMethod, headers, ...(event.httpMethod === 'POST' && { body }) });
}
