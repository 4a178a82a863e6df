import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { callTool, createMcpServer, type CallContext } from '#mcp/server';
import { listedTool, TOOLS, type TaskObject, type ToolBackend } from '#mcp/tools';
import { generateVideoBody } from '#contract/generate-video';

/** A backend whose task moves through `states`, one per poll; errors are `{ code }` objects. */
function scriptedBackend(states: TaskObject[]): ToolBackend & { polls: number } {
  const unused = async () => {
    throw new Error('not in this test');
  };
  const backend: ToolBackend & { polls: number } = {
    polls: 0,
    getTask: async () => states[Math.min(backend.polls++, states.length - 1)]!,
    describeError: (error: unknown) => ({ code: (error as { code: string }).code, message: 'it failed' }),
    generateVideo: unused,
    generateImage: unused,
    cancelTask: unused,
    deleteTask: unused,
    listTasks: unused,
    uploadImage: unused,
    getCredits: unused,
    listModels: unused,
    quote: unused,
    getUsage: unused,
  };
  return backend;
}

/** A clock that moves only when the server sleeps. */
function fakeTime(): Pick<CallContext, 'sleep' | 'now'> {
  let now = 0;
  return { now: () => now, sleep: async (ms) => void (now += ms) };
}

const processing = (progress: number) => ({ status: 'processing', progress });

describe('wait_for_task', () => {
  it('sends rising progress while the task processes and returns it when it ends', async () => {
    const backend = scriptedBackend([processing(5), processing(5), processing(40), { status: 'completed', progress: 100 }]);
    const sent: number[] = [];
    const result = await callTool(backend, 'wait_for_task', { id: 'vid_1', timeout_seconds: 30 }, {
      maxWaitSeconds: 50,
      pollIntervalMs: 1000,
      ...fakeTime(),
      onProgress: async (progress) => void sent.push(progress),
    });
    expect(sent).toEqual([5, 40]);
    expect(result.structuredContent).toEqual({ status: 'completed', progress: 100 });
    expect(result.content).toHaveLength(1);
  });

  it('returns the task at its timeout (capped by the server), saying to call again', async () => {
    const backend = scriptedBackend([processing(10)]);
    const result = await callTool(backend, 'wait_for_task', { id: 'img_1', timeout_seconds: 50 }, { maxWaitSeconds: 25, pollIntervalMs: 1000, ...fakeTime() });
    expect(backend.polls).toBe(26);
    expect(result.isError).toBeUndefined();
    expect(result.content[1]).toEqual({ type: 'text', text: 'Still processing after 25 s: call wait_for_task again with id "img_1".' });
  });

  it('stops polling once its request is over (the client left), without calling it a failure', async () => {
    const backend = scriptedBackend([processing(10)]);
    const ended = new AbortController();
    let described = 0;
    const describeError = backend.describeError;
    backend.describeError = (error) => ((described += 1), describeError(error));
    const time = fakeTime();
    const result = await callTool(backend, 'wait_for_task', { id: 'vid_1', timeout_seconds: 50 }, {
      maxWaitSeconds: 50,
      pollIntervalMs: 1000,
      ...time,
      signal: ended.signal,
      // The client goes away after the third poll.
      sleep: async (ms) => {
        await time.sleep!(ms);
        if (backend.polls === 3) ended.abort();
      },
    });
    expect(backend.polls).toBe(3);
    expect(described).toBe(0);
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringMatching(/^canceled: /) }] });
  });

  it('refuses a timeout over 50 s and an id that is no task id, as validation errors', async () => {
    const backend = scriptedBackend([processing(0)]);
    const context = { maxWaitSeconds: 50, pollIntervalMs: 1000, ...fakeTime() };
    const tooLong = await callTool(backend, 'wait_for_task', { id: 'vid_1', timeout_seconds: 51 }, context);
    expect(tooLong).toEqual({ isError: true, content: [{ type: 'text', text: 'validation_error: timeout_seconds: must be at most 50 seconds' }] });
    const notAnId = await callTool(backend, 'get_task', { id: 'whk_1' }, context);
    expect((notAnId.content[0] as { text: string }).text).toBe('validation_error: id: must be a video_id (vid_…) or an image_id (img_…)');
    expect(backend.polls).toBe(0);
  });
});

describe('tool calls', () => {
  it('answer an unknown tool and a backend error as tool errors starting with the code', async () => {
    const backend = scriptedBackend([]);
    backend.getTask = async () => {
      throw { code: 'not_found' };
    };
    const context = { maxWaitSeconds: 50, pollIntervalMs: 1000 };
    expect((await callTool(backend, 'get_task', { id: 'vid_1' }, context)).content).toEqual([{ type: 'text', text: 'not_found: it failed' }]);
    expect((await callTool(backend, 'make_coffee', {}, context)).isError).toBe(true);
  });

  it('list generate_video with every field of the contract body, prompt required', () => {
    const listed = listedTool(TOOLS.generate_video);
    expect(Object.keys(listed.inputSchema.properties as object).sort()).toEqual(Object.keys(generateVideoBody.shape).sort());
    expect(listed.inputSchema.required).toEqual(['prompt']);
    expect(listed.description).toMatch(/vid-1-5-pro 5 credits\/s/);
  });
});

describe('tool calls a client gets wrong', () => {
  const context = { maxWaitSeconds: 50, pollIntervalMs: 1000 };

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])('answer %s, a name every JavaScript object has, as an unknown tool', async (name) => {
    const result = await callTool(scriptedBackend([]), name, {}, context);
    expect(result).toEqual({ isError: true, content: [{ type: 'text', text: `validation_error: Unknown tool "${name}". Tools: ${Object.keys(TOOLS).join(', ')}.` }] });
  });

  /** A server of these tools and an SDK client on it, in memory; the backend answers get_credits. */
  async function connected(): Promise<Client> {
    const backend = scriptedBackend([]);
    backend.getCredits = async () => ({ credits: 7 });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer(backend, context).connect(serverSide);
    const client = new Client({ name: 'vidgen-test', version: '1.0.0' });
    await client.connect(clientSide);
    return client;
  }

  // The SDK's own check of tools/call answered these with its zod issues as JSON (-32603).
  it.each([
    ['null', null],
    ['a list', [1]],
    ['a string', 'credits'],
  ])('answer arguments that are %s with a validation error naming `arguments`', async (_what, args) => {
    const client = await connected();
    try {
      const result = await client.request({ method: 'tools/call', params: { name: 'get_credits', arguments: args as never } }, CallToolResultSchema);
      expect(result).toEqual({
        isError: true,
        content: [{ type: 'text', text: "validation_error: arguments: must be an object of the tool's parameters by name, or left out." }],
      });
      // Left out, they are no parameters.
      const credits = await client.request({ method: 'tools/call', params: { name: 'get_credits' } }, CallToolResultSchema);
      expect(credits.structuredContent).toEqual({ credits: 7 });
    } finally {
      await client.close();
    }
  });

  it('answer a tool name that is no string as an unknown tool, and another method as the protocol says', async () => {
    const client = await connected();
    try {
      const result = await client.request({ method: 'tools/call', params: { name: 42 as never } }, CallToolResultSchema);
      expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringMatching(/^validation_error: Unknown tool 42\. Tools: generate_video, /) }] });
      await expect(client.request({ method: 'resources/list' }, CallToolResultSchema)).rejects.toThrow(/Method not found/);
    } finally {
      await client.close();
    }
  });
});
