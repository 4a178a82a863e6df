import type { RouteDoc } from '../route';
import { AUTH } from './operation-doc';

/** Agents: the Model Context Protocol, with tools over the same use cases as the endpoints. */
export const MCP_DOCS: RouteDoc[] = [
  {
    handler: 'mcp',
    doc: {
      operationId: 'mcp',
      summary: 'Model Context Protocol (for AI agents)',
      description:
        'The Model Context Protocol over Streamable HTTP, stateless (no session): point an MCP client at this URL with your key as `Authorization: Bearer`. Tools: `generate_video`, `generate_image`, `get_task`, `wait_for_task` (returns at its timeout, at most 50 s: call it again), `cancel_task`, `delete_task`, `list_tasks`, `upload_image`, `get_credits`, `list_models`, `quote`, `get_usage`; their inputs are the endpoints\' parameters. The key needs the `read` scope to connect, and each tool the scope of the endpoint it mirrors (`generate` for `generate_*`, `cancel_task`, `delete_task`, `upload_image`); each request, so each tool call, counts in your rate limit; an API error is a tool result with `isError: true` whose text starts with the error code. Answers are JSON-RPC (JSON, or an SSE stream, sent as it is written, when the request asked for progress), not the envelope; errors before MCP (401, 429) are the envelope. One JSON-RPC message per request: a batch (an array) is refused with a JSON-RPC error (-32600). `GET` and `DELETE` on this path answer 405 `method_not_allowed` with `Allow: POST`: the server is stateless, with no event stream and no session.',
      tag: 'Agents',
      request: {
        body: {
          required: true,
          content: { 'application/json': { schema: { type: 'object', description: 'One JSON-RPC 2.0 message of the Model Context Protocol (not a batch).' } } },
        },
      },
      success: {
        description: 'The JSON-RPC answer (202 with no body for a notification).',
        content: {
          'application/json': { schema: { type: 'object', description: 'A JSON-RPC 2.0 response.' } },
          'text/event-stream': { schema: { type: 'string', description: 'Server-sent events: progress notifications, then the response.' } },
        },
      },
      errors: [401, 403, 429, 500],
      curl: `curl -s -X POST "{BASE}/mcp" ${AUTH} \\\n  -H "Content-Type: application/json" -H "Accept: application/json, text/event-stream" \\\n  -d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'`,
    },
  },
];
