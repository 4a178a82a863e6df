import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { ZodError } from 'zod';
import { describeZodError } from '#http/error-mapping';
import { listedTool, TOOLS, type TaskKind, type TaskObject, type ToolBackend, type ToolName } from './tools';

export interface WaitSettings {
  /** The longest a wait_for_task call may take here (the hosted endpoint sits behind a gateway timeout). */
  maxWaitSeconds: number;
  pollIntervalMs: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

export const SERVER_INFO = { name: 'vidgen', version: '1.0.0' } as const;

/**
 * The server never asks a client for structured input (elicitation), the only thing the SDK
 * validates JSON Schemas for; this keeps Ajv (and its 130 KB) out of the Lambda's bundle.
 */
const NO_SCHEMA_VALIDATION: jsonSchemaValidator = {
  getValidator: () => () => ({ valid: false, data: undefined, errorMessage: 'This server validates no client-supplied schemas.' }),
};

/** An MCP server offering the tools of `./tools`, each call carried out by `backend`. */
export function createMcpServer(backend: ToolBackend, wait: WaitSettings): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {} },
    jsonSchemaValidator: NO_SCHEMA_VALIDATION,
    instructions:
      'Generate videos and images with the vidgen API. Start with generate_video or generate_image, then call wait_for_task with the returned id until the task is completed (it then carries the result URL). Prices are in credits (get_credits shows the balance).',
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listedTools() }));
  // tools/call is the fallback, not a registered handler: the SDK parses a registered method's
  // params first and answers a malformed one (`arguments: null`) with its zod issues as JSON;
  // here a tool call gets a validation error naming the field, as its own inputs do.
  server.fallbackRequestHandler = async (request, extra) => {
    if (request.method !== 'tools/call') throw new McpError(ErrorCode.MethodNotFound, 'Method not found');
    const token = request.params?._meta?.progressToken;
    const onProgress =
      token === undefined
        ? undefined
        : (progress: number, message: string) =>
            extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, total: 100, message } });
    return callTool(backend, request.params?.name, request.params?.arguments, { ...wait, onProgress, signal: extra.signal });
  };
  return server;
}

let listed: ReturnType<typeof listedTool>[] | undefined;

/** The tools as listed, their JSON Schemas built once per process (a server is built per request on Lambda). */
function listedTools(): ReturnType<typeof listedTool>[] {
  listed ??= Object.values(TOOLS).map(listedTool);
  return listed;
}

export type CallContext = WaitSettings & {
  onProgress?: (progress: number, message: string) => Promise<void>;
  /** Aborted when the request is over (the client left, the server closed): a wait stops polling. */
  signal?: AbortSignal;
};

/**
 * One tool call, `name` and `args` as the client sent them: the API's object as structured
 * content and JSON text, or its error as a tool error.
 */
export async function callTool(backend: ToolBackend, name: unknown, args: unknown, context: CallContext): Promise<CallToolResult> {
  // Own keys only: `__proto__` or `toString` is no tool, though every object has one.
  if (typeof name !== 'string' || !Object.hasOwn(TOOLS, name)) {
    return toolError('validation_error', `Unknown tool ${JSON.stringify(name)}. Tools: ${Object.keys(TOOLS).join(', ')}.`);
  }
  if (args !== undefined && !isPlainObject(args)) return toolError('validation_error', "arguments: must be an object of the tool's parameters by name, or left out.");
  try {
    const outcome = await run(backend, name as ToolName, args ?? {}, context);
    return {
      structuredContent: outcome.result as Record<string, unknown>,
      content: [{ type: 'text', text: JSON.stringify(outcome.result) }, ...(outcome.note ? [{ type: 'text' as const, text: outcome.note }] : [])],
    };
  } catch (error) {
    // Nobody reads this answer (the SDK drops it): not an error of ours to log.
    if (context.signal?.aborted) return toolError('canceled', 'The request ended before the tool finished.');
    if (error instanceof ZodError) return toolError('validation_error', describeZodError(error));
    const { code, message } = backend.describeError(error);
    return toolError(code, message);
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function toolError(code: string, message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: `${code}: ${message}` }] };
}

const kindOf = (id: string): TaskKind => (id.startsWith('vid_') ? 'video' : 'image');

async function run(backend: ToolBackend, name: ToolName, args: Record<string, unknown>, context: CallContext): Promise<{ result: object; note?: string }> {
  switch (name) {
    case 'generate_video':
      return { result: await backend.generateVideo(TOOLS.generate_video.input.parse(args)) };
    case 'generate_image':
      return { result: await backend.generateImage(TOOLS.generate_image.input.parse(args)) };
    case 'get_task': {
      const { id } = TOOLS.get_task.input.parse(args);
      return { result: await backend.getTask(kindOf(id), id) };
    }
    case 'wait_for_task': {
      const { id, timeout_seconds } = TOOLS.wait_for_task.input.parse(args);
      return waitForTask(backend, id, Math.min(timeout_seconds, context.maxWaitSeconds), context);
    }
    case 'cancel_task': {
      const { id } = TOOLS.cancel_task.input.parse(args);
      return { result: await backend.cancelTask(kindOf(id), id) };
    }
    case 'delete_task': {
      const { id } = TOOLS.delete_task.input.parse(args);
      return { result: await backend.deleteTask(kindOf(id), id) };
    }
    case 'list_tasks': {
      const { kind, page, limit, end_user } = TOOLS.list_tasks.input.parse(args);
      return { result: await backend.listTasks(kind, { page, limit, ...(end_user !== undefined && { end_user }) }) };
    }
    case 'upload_image': {
      const input = TOOLS.upload_image.input.parse(args);
      return { result: await backend.uploadImage(input.url !== undefined ? { url: input.url } : { bytes: Buffer.from(input.data_base64!, 'base64') }) };
    }
    case 'get_credits':
      TOOLS.get_credits.input.parse(args);
      return { result: await backend.getCredits() };
    case 'list_models':
      TOOLS.list_models.input.parse(args);
      return { result: await backend.listModels() };
    case 'quote':
      // Validated by the backend as POST /quote validates it (the start's own parser, word for word).
      return { result: await backend.quote(args) };
    case 'get_usage':
      return { result: await backend.getUsage(TOOLS.get_usage.input.parse(args)) };
  }
}

/**
 * Polls the task until it ends or `timeoutSeconds` pass. A progress notification goes out on
 * the first poll and whenever progress rises (the protocol wants it increasing), while the task
 * processes: the end is the result itself (the SDK's client handles notifications a tick after
 * responses, so one sent just before the result would reach it after its request was closed).
 */
async function waitForTask(backend: ToolBackend, id: string, timeoutSeconds: number, context: CallContext): Promise<{ result: TaskObject; note?: string }> {
  const now = context.now ?? Date.now;
  const sleep = context.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const deadline = now() + timeoutSeconds * 1000;
  let reported = -1;
  for (;;) {
    // Nobody is left to answer: stop polling (the SDK sends nothing for an aborted request).
    if (context.signal?.aborted) throw new Error('wait_for_task abandoned: the request is over.');
    const task = await backend.getTask(kindOf(id), id);
    if (task.status !== 'processing') return { result: task };
    if (context.onProgress && task.progress > reported) {
      reported = task.progress;
      await context.onProgress(task.progress, `${id}: processing, ${task.progress}%`);
    }
    const left = deadline - now();
    if (left <= 0) {
      return { result: task, note: `Still processing after ${timeoutSeconds} s: call wait_for_task again with id "${id}".` };
    }
    await sleep(Math.min(context.pollIntervalMs, left));
  }
}
