import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ApiError, type VidgenClient } from '#client';
import { createMcpServer } from '#mcp/server';
import { MAX_WAIT_SECONDS, type ToolBackend } from '#mcp/tools';

/** How often wait_for_task polls the API (the CLI's --wait polls every 5 s; an agent waits less). */
const POLL_INTERVAL_MS = 2000;

/**
 * `vidgen mcp`: the hosted MCP server's tools over stdio, for desktop MCP clients. Each call goes
 * to the API through the TS client (its retries and Idempotency-Key included). Resolves when
 * the client closes stdin or `signal` aborts.
 */
export async function serveMcp(client: VidgenClient, signal: AbortSignal): Promise<number> {
  const server = createMcpServer(clientBackend(client), { maxWaitSeconds: MAX_WAIT_SECONDS, pollIntervalMs: POLL_INTERVAL_MS });
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
    signal.addEventListener('abort', () => void server.close(), { once: true });
  });
  await server.connect(new StdioServerTransport());
  process.stdin.once('end', () => void server.close());
  await closed;
  return 0;
}

export function clientBackend(client: VidgenClient): ToolBackend {
  return {
    generateVideo: (body) => client.generateVideo(body as never),
    generateImage: (body) => client.generateImage(body as never),
    getTask: (kind, id) => (kind === 'video' ? client.getVideo(id) : client.getImage(id)),
    cancelTask: (kind, id) => (kind === 'video' ? client.cancelVideo(id) : client.cancelImage(id)),
    deleteTask: (kind, id) => (kind === 'video' ? client.deleteVideo(id) : client.deleteImage(id)),
    listTasks: (kind, { end_user: endUser, ...page }) => {
      const params = { ...page, ...(endUser !== undefined && { endUser }) };
      return kind === 'video' ? client.listVideos(params) : client.listImages(params);
    },
    uploadImage: async (source) => client.uploadImage('bytes' in source ? source.bytes : await download(source.url)),
    getCredits: () => client.getCredits(),
    listModels: () => client.listModels(),
    quote: (body) => client.quote(body as never),
    getUsage: (query) => client.getUsage(query),
    describeError: (error) =>
      error instanceof ApiError
        ? { code: error.code, message: error.message }
        : { code: 'internal_error', message: error instanceof Error ? error.message : String(error) },
  };
}

/** The image at `url`, fetched from this machine; the API then checks its type and size. */
async function download(url: string): Promise<Uint8Array> {
  const response = await fetch(url).catch((error: unknown) => {
    throw new ApiError(`url: could not be fetched (${error instanceof Error ? error.message : String(error)}).`, { code: 'validation_error', status: 400 });
  });
  if (!response.ok) throw new ApiError(`url: answered HTTP ${response.status}.`, { code: 'validation_error', status: 400 });
  return new Uint8Array(await response.arrayBuffer());
}
