/**
 * Exactly the MCP SDK modules the MCP function imports (functions/mcp/server.ts and
 * lambda-transport.ts), for bench/cold-start.ts to weigh what the SDK itself adds to a bundle.
 * Bundled with the MCP function's own options (Ajv left out, zod external: generate carries zod).
 */
export { Server } from '@modelcontextprotocol/sdk/server/index.js';
export { ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
export { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
