import { rateLimiter } from '#app-context/rate-limiter';
import { streamedApiHandler } from '#http/http-handler';
import { mcpResponse } from '#mcp/lambda-transport';
import { spec } from './mcp.spec';

/** POST /api/v1/mcp: the Model Context Protocol (Streamable HTTP, stateless) for the key's account, streamed. */
export const handler = streamedApiHandler(spec, async ({ event, principal }) => mcpResponse(event, principal), { rateLimiter });
