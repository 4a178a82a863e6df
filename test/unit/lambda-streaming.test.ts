import { lambdaContext } from '#bin/lambda-context.cjs';
import { installRuntimeGlobals, invokeStreaming, isStreamingHandler, readAll } from '#bin/lambda-streaming.cjs';

/** The local stand-in for Lambda's response streaming and API Gateway's reading of it. */
describe('lambda-streaming', () => {
  const context = lambdaContext('test');
  type Global = { awslambda?: Record<string, unknown> };

  it("adds the streaming members to an `awslambda` someone else made first (the SDK's invoke store), keeping theirs", () => {
    const saved = (globalThis as Global).awslambda;
    const store = { name: 'invoke store' };
    (globalThis as Global).awslambda = { InvokeStore: store };
    try {
      installRuntimeGlobals();
      const made = (globalThis as Global).awslambda!;
      expect(made.InvokeStore).toBe(store);
      expect(typeof made.streamifyResponse).toBe('function');
      expect(typeof (made.HttpResponseStream as { from?: unknown }).from).toBe('function');
    } finally {
      (globalThis as Global).awslambda = saved;
    }
  });

  it('reads the metadata, then the body, of a handler that streams through HttpResponseStream.from', async () => {
    const handler = awslambda.streamifyResponse(async (_event, stream) => {
      const http = awslambda.HttpResponseStream.from(stream, { statusCode: 201, headers: { 'X-A': '1' } });
      http.write('a');
      http.end('b');
    });
    expect(isStreamingHandler(handler)).toBe(true);
    expect(isStreamingHandler(async () => undefined)).toBe(false);
    const answer = await invokeStreaming(handler, {}, context);
    expect([answer.statusCode, answer.headers]).toEqual([201, { 'X-A': '1' }]);
    expect(await readAll(answer.body)).toBe('ab');
  });

  it('sends the metadata with the first write, as the runtime does: none for an answer that never writes', async () => {
    const unwritten = awslambda.streamifyResponse(async (_event, stream) => {
      awslambda.HttpResponseStream.from(stream, { statusCode: 202 }).end();
    });
    await expect(invokeStreaming(unwritten, {}, context)).rejects.toThrow(/ended without its HTTP metadata/);
    const empty = awslambda.streamifyResponse(async (_event, stream) => {
      const http = awslambda.HttpResponseStream.from(stream, { statusCode: 202 });
      http.write('');
      http.end();
    });
    const answer = await invokeStreaming(empty, {}, context);
    expect([answer.statusCode, await readAll(answer.body)]).toEqual([202, '']);
  });

  it('refuses a handler that writes no metadata, and passes on a failure before it', async () => {
    const raw = awslambda.streamifyResponse(async (_event, stream) => {
      stream.end('no metadata');
    });
    await expect(invokeStreaming(raw, {}, context)).rejects.toThrow(/HTTP metadata/);
    const silent = awslambda.streamifyResponse(async () => undefined);
    await expect(invokeStreaming(silent, {}, context)).rejects.toThrow(/ended without its HTTP metadata/);
    const failing = awslambda.streamifyResponse(async () => {
      throw new Error('boom');
    });
    await expect(invokeStreaming(failing, {}, context)).rejects.toThrow('boom');
  });

  it('cuts the body when the handler fails after its metadata, as a broken connection would', async () => {
    const handler = awslambda.streamifyResponse(async (_event, stream) => {
      awslambda.HttpResponseStream.from(stream, { statusCode: 200 }).write('part');
      throw new Error('mid-answer');
    });
    const answer = await invokeStreaming(handler, {}, context);
    await expect(readAll(answer.body)).rejects.toThrow('mid-answer');
  });
});
