import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import type { LocalStack } from '#bin/local-stack/stack';
import { generateImageBody } from '#contract/generate-image';
import { generateVideoBody } from '#contract/generate-video';
import { createAccount, createApiKey } from '#domain/accounts/account-admin';
import { TOOLS } from '#mcp/tools';
import { call as callApi, startTestApi } from '#test-support/local-api';
import { REPO_ROOT } from '#test-support/run-script';

/**
 * An MCP client from the SDK against the local stack: over Streamable HTTP (POST /api/v1/mcp,
 * the Lambda's handler) and over stdio (`vidgen mcp`, calling the API through the TS client).
 */
jest.setTimeout(120_000);

type Json = Record<string, any>;
let stack: LocalStack;

beforeAll(async () => {
  // Long enough that the wait's first poll, over stdio through a child process on a loaded
  // machine, still finds the task processing (only then is progress sent).
  stack = await startTestApi({ SIM_DELAY_SECONDS: '6', PROVIDER: 'simulated' });
});
afterAll(async () => {
  await stack.stop();
});

async function keys(options: { rateLimit?: number; scopes?: ('generate' | 'read' | 'webhooks')[]; monthlySpendLimit?: number } = {}) {
  const { account } = await createAccount(stack.context, { credits: 500, paidAccess: true, subscriptionStatus: 'active' });
  const test = await createApiKey(stack.context, account.accountId, {
    rateLimit: options.rateLimit ?? 100_000,
    mode: 'test',
    ...(options.scopes && { scopes: options.scopes }),
    ...(options.monthlySpendLimit !== undefined && { monthlySpendLimit: options.monthlySpendLimit }),
  });
  return { accountId: account.accountId, test: test.apiKey };
}

async function httpClient(key: string): Promise<Client> {
  const client = new Client({ name: 'vidgen-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${stack.baseUrl}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return client;
}

async function stdioClient(key: string): Promise<Client> {
  const client = new Client({ name: 'vidgen-test', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: path.join(REPO_ROOT, 'node_modules', '.bin', 'tsx'),
    args: [path.join(REPO_ROOT, 'bin', 'vidgen.ts'), 'mcp'],
    env: { PATH: process.env.PATH ?? '', VIDGEN_API_KEY: key, VIDGEN_BASE_URL: stack.baseUrl, VIDGEN_CONFIG: '/nonexistent/vidgen.json' },
    stderr: 'pipe',
  });
  await client.connect(transport);
  return client;
}

const call = (client: Client, name: string, args: Json, onprogress?: (progress: Progress) => void) =>
  client.callTool({ name, arguments: args }, undefined, { ...(onprogress && { onprogress }), timeout: 90_000 }) as Promise<CallToolResult>;

const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;

describe.each([
  ['Streamable HTTP (POST /api/v1/mcp)', httpClient],
  ['stdio (vidgen mcp)', stdioClient],
])('MCP over %s', (_transport, connect) => {
  let client: Client;
  beforeAll(async () => {
    client = await connect((await keys()).test);
  });
  afterAll(async () => {
    await client.close();
  });

  it('lists every tool, generate_video and generate_image with the contract body as input', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(Object.keys(TOOLS));
    const schemaOf = (name: string) => tools.find((tool) => tool.name === name)!.inputSchema;
    // One source: every field of POST /generate's body is a property of the tool's input.
    expect(Object.keys(schemaOf('generate_video').properties!).sort()).toEqual(Object.keys(generateVideoBody.shape).sort());
    expect(Object.keys(schemaOf('generate_image').properties!).sort()).toEqual(Object.keys(generateImageBody.shape).sort());
    expect(schemaOf('generate_video').required).toEqual(['prompt']);
    expect(tools.find((tool) => tool.name === 'wait_for_task')!.description).toMatch(/call wait_for_task again/);
  });

  it('starts a video with a test key and waits for it with progress notifications', async () => {
    const attribution = { end_user: 'alice', metadata: { order_id: '1001' } };
    const started = await call(client, 'generate_video', { prompt: 'a lighthouse at dusk', duration: 3, ...attribution });
    expect(started.isError ? text(started) : 'started').toBe('started');
    const video = started.structuredContent as Json;
    expect(video).toMatchObject({ status: 'processing', livemode: false, duration: 3, ...attribution });
    expect(video.video_id).toMatch(/^vid_/);
    expect(JSON.parse(text(started))).toEqual(video);

    const progress: Progress[] = [];
    const waited = await call(client, 'wait_for_task', { id: video.video_id, timeout_seconds: 25 }, (p) => progress.push(p));
    expect(waited.structuredContent).toMatchObject({ video_id: video.video_id, status: 'completed', progress: 100, ...attribution });
    expect(progress.length).toBeGreaterThanOrEqual(1);
    // Sent while it processed, rising: the end is the result.
    expect(progress[0]).toMatchObject({ total: 100, message: expect.stringContaining(`${video.video_id}: processing`) });
    const values = progress.map((p) => p.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(new Set(values).size).toBe(values.length);
    expect(values.at(-1)).toBeLessThan(100);

    const got = await call(client, 'get_task', { id: video.video_id });
    expect(got.structuredContent).toEqual(waited.structuredContent);
    const listed = await call(client, 'list_tasks', { kind: 'video' });
    expect((listed.structuredContent as Json).videos.map((v: Json) => v.video_id)).toContain(video.video_id);
    // Only that end user's: no other task of this account names alice.
    const mine = await call(client, 'list_tasks', { kind: 'video', end_user: 'alice' });
    expect((mine.structuredContent as Json).videos.map((v: Json) => v.video_id)).toEqual([video.video_id]);
    expect((await call(client, 'list_tasks', { kind: 'video', end_user: 'bob' })).structuredContent).toMatchObject({ videos: [], pagination: { total: 0 } });
  });

  it('sends each progress notification while the wait still runs: a client that cancels on the first one ends its own wait', async () => {
    // A task that never finishes (sim:stall): the wait could only end at its timeout, still processing,
    // were the notifications held back until then (a buffered answer). Streamed, the client reads
    // the first one mid-wait and cancels the task (a second request), and the wait returns it canceled.
    const started = await call(client, 'generate_video', { prompt: 'a tide that never turns sim:stall', duration: 3 });
    const video = started.structuredContent as Json;
    let cancel: Promise<CallToolResult> | undefined;
    const waited = await call(client, 'wait_for_task', { id: video.video_id, timeout_seconds: 50 }, () => {
      cancel ??= call(client, 'cancel_task', { id: video.video_id });
    });
    expect(cancel).toBeDefined();
    expect((await cancel!).structuredContent).toMatchObject({ video_id: video.video_id, status: 'failed', error: { code: 'canceled' } });
    expect(waited.structuredContent).toMatchObject({ video_id: video.video_id, status: 'failed', error: { code: 'canceled' } });
  });

  it("deletes a finished task's files with delete_task: refused while it processes, then the old URLs 404 and a repeat answers the same", async () => {
    const started = (await call(client, 'generate_image', { prompt: 'a lighthouse at dusk' })).structuredContent as Json;
    const early = await call(client, 'delete_task', { id: started.image_id });
    expect([early.isError, text(early)]).toEqual([true, expect.stringMatching(/^task_not_final: /)]);

    let image: Json = started;
    while (image.status === 'processing') image = (await call(client, 'wait_for_task', { id: started.image_id, timeout_seconds: 50 })).structuredContent as Json;
    expect(image.status).toBe('completed');
    const urls = image.image_urls as string[];
    expect(await Promise.all(urls.map(async (url) => (await fetch(url)).status))).toEqual(urls.map(() => 200));

    const deleted = await call(client, 'delete_task', { id: started.image_id });
    expect(deleted.structuredContent).toMatchObject({ image_id: started.image_id, status: 'completed', output_deleted_at: expect.any(String) });
    expect((deleted.structuredContent as Json).image_urls ?? []).toEqual([]);
    expect(await Promise.all(urls.map(async (url) => (await fetch(url)).status))).toEqual(urls.map(() => 404));
    const again = await call(client, 'delete_task', { id: started.image_id });
    expect(again.structuredContent).toEqual(deleted.structuredContent);
  });

  it('answers an API error as a tool error whose text starts with its code', async () => {
    const missing = await call(client, 'get_task', { id: 'vid_01M7ZNHRE3YZJA4Y3XQS4DQDGQ' });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toMatch(/^not_found: /);

    const invalid = await call(client, 'generate_video', { prompt: 'x', duration: 99 });
    expect(invalid.isError).toBe(true);
    expect(text(invalid)).toBe('validation_error: duration: must be at most 12 seconds');

    const badId = await call(client, 'cancel_task', { id: 'task_1' });
    expect(text(badId)).toMatch(/^validation_error: id: must be a video_id/);
  });

  it('gets the credits and uploads an image from base64', async () => {
    const credits = await call(client, 'get_credits', {});
    expect(credits.isError ? text(credits) : 'read').toBe('read');
    expect(credits.structuredContent).toMatchObject({ paid_access: true });
    // A 1x1 PNG.
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    const uploaded = await call(client, 'upload_image', { data_base64: png });
    expect(uploaded.isError ? text(uploaded) : 'uploaded').toBe('uploaded');
    expect((uploaded.structuredContent as Json).url).toMatch(/\/uploads\//);
    const models = await call(client, 'list_models', {});
    expect((models.structuredContent as Json).models.map((m: Json) => m.id)).toContain('vid-1-5-pro');
    const quote = await call(client, 'quote', { kind: 'video', prompt: 'a kite', model: 'vid-1-5-pro', duration: 4 });
    expect(quote.isError ? text(quote) : 'quoted').toBe('quoted');
    expect(quote.structuredContent).toMatchObject({ credits: 20 });
    const badQuote = await call(client, 'quote', { kind: 'video', prompt: 'a kite', duration: 99 });
    expect(text(badQuote)).toBe('validation_error: duration: must be at most 12 seconds');
    const neither = await call(client, 'upload_image', {});
    expect(text(neither)).toMatch(/^validation_error: /);
  });

  it('reports usage as GET /usage does; a bad group_by is a validation error naming it', async () => {
    const { test } = await keys();
    const own = await connect(test);
    try {
      const started = await callApi(stack.baseUrl, '/generate', {
        key: test,
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ prompt: 'a kite', duration: 3, end_user: 'alice' }),
      });
      expect(started.status).toBe(200);
      const usage = await call(own, 'get_usage', { group_by: 'end_user' });
      expect(usage.isError ? text(usage) : 'read').toBe('read');
      expect((usage.structuredContent as Json).rows).toEqual([{ group: 'alice', tasks: 1, credits_charged: 15, credits_refunded: 0, credits_net: 15 }]);
      expect(usage.structuredContent).toEqual((await callApi(stack.baseUrl, '/usage?group_by=end_user', { key: test })).body.data);
      expect(text(await call(own, 'get_usage', { group_by: 'week' }))).toMatch(/^validation_error: group_by: must be one of day, model, key, end_user/);
    } finally {
      await own.close();
    }
  });
});

describe('POST /api/v1/mcp', () => {
  it('refuses a request without a key (401) before any MCP', async () => {
    const client = new Client({ name: 'vidgen-test', version: '1.0.0' });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(`${stack.baseUrl}/mcp`)))).rejects.toThrow(/unauthorized/);
  });

  it('refuses a tool outside the key\'s scopes as a forbidden tool error, and a key without read before any MCP', async () => {
    const readOnly = await httpClient((await keys({ scopes: ['read'] })).test);
    const refused = await call(readOnly, 'generate_video', { prompt: 'a kite', duration: 3 });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toBe('forbidden: This API key does not have the "generate" scope this endpoint needs.');
    expect((await call(readOnly, 'get_credits', {})).isError).toBeFalsy();
    await readOnly.close();
    const generateOnly = new Client({ name: 'vidgen-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${stack.baseUrl}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${(await keys({ scopes: ['generate'] })).test}` } },
    });
    await expect(generateOnly.connect(transport)).rejects.toThrow(/forbidden/);
  });

  it('counts starts in the key\'s monthly spend limit, as the routes do', async () => {
    const client = await httpClient((await keys({ monthlySpendLimit: 19 })).test);
    const quote = await call(client, 'quote', { kind: 'video', prompt: 'a kite', model: 'vid-1-5-pro', duration: 4 });
    expect(quote.structuredContent).toMatchObject({ credits: 20, can_start: false, reason: 'spend_limit_exceeded' });
    const refused = await call(client, 'generate_video', { prompt: 'a kite', model: 'vid-1-5-pro', duration: 4 });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^spend_limit_exceeded: /);
    await client.close();
  });

  it('counts each request in the key\'s rate limit', async () => {
    const { test } = await keys({ rateLimit: 3 });
    // initialize and notifications/initialized are two requests; two calls then pass the limit of 3.
    const client = await httpClient(test);
    await call(client, 'get_credits', {});
    await expect(call(client, 'get_credits', {})).rejects.toThrow(/rate_limit_exceeded/);
    await client.close();
  });

  it('refuses a JSON-RPC batch with a JSON-RPC error: 30 starts in one POST on a 5-per-minute key start nothing', async () => {
    const { test } = await keys({ rateLimit: 5 });
    const batch = Array.from({ length: 30 }, (_, i) => ({
      jsonrpc: '2.0',
      id: i + 1,
      method: 'tools/call',
      params: { name: 'generate_video', arguments: { prompt: `a kite, take ${i}`, duration: 3 } },
    }));
    const answer = await fetch(`${stack.baseUrl}/mcp`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${test}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify(batch),
    });
    expect([answer.status, await answer.json()]).toEqual([
      400,
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request: batches are not supported/) } },
    ]);
    // One request counted, nothing started.
    const listed = await callApi<{ videos: unknown[] }>(stack.baseUrl, '/videos', { key: test });
    expect([listed.status, listed.body.data?.videos, listed.headers.get('x-ratelimit-remaining')]).toEqual([200, [], '3']);
  });
});

describe('/api/v1/mcp and clients this project did not write', () => {
  it('answers GET and DELETE with 405 method_not_allowed and Allow: POST (no event stream, no session), with or without a key', async () => {
    const { test } = await keys();
    for (const method of ['GET', 'DELETE']) {
      for (const key of [test, undefined]) {
        const answer = await callApi(stack.baseUrl, '/mcp', { method, key, headers: { Accept: 'text/event-stream' } });
        expect([method, key !== undefined, answer.status, answer.headers.get('allow'), answer.body.error?.code]).toEqual([method, key !== undefined, 405, 'POST', 'method_not_allowed']);
        expect(answer.headers.get('x-request-id')).toBeTruthy();
      }
    }
    // Any other method is an unknown route, as everywhere.
    expect((await callApi(stack.baseUrl, '/mcp', { method: 'PUT', key: test })).status).toBe(404);
  });

  /**
   * The MCP Inspector's CLI (@modelcontextprotocol/inspector): the protocol's reference client,
   * on its own SDK. It opens the optional GET stream after initializing and takes a 404 there
   * for "session terminated". HOME is a folder of its own: it keeps a catalog and state there.
   */
  async function inspector(key: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const home = mkdtempSync(path.join(os.tmpdir(), 'vidgen-inspector-'));
    const bin = path.join(REPO_ROOT, 'node_modules', '.bin', 'mcp-inspector');
    const argv = ['--cli', `${stack.baseUrl}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${key}`, ...args];
    try {
      return await new Promise((resolve) => {
        execFile(bin, argv, { env: { PATH: process.env.PATH ?? '', HOME: home }, timeout: 90_000 }, (error, stdout, stderr) => {
          resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
        });
      });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }

  it('serves the MCP Inspector (its CLI over Streamable HTTP): it lists every tool and calls get_credits', async () => {
    const { test } = await keys();
    const listed = await inspector(test, '--method', 'tools/list');
    expect([listed.code, listed.stderr]).toEqual([0, expect.any(String)]);
    expect((JSON.parse(listed.stdout) as { tools: { name: string }[] }).tools.map((tool) => tool.name)).toEqual(Object.keys(TOOLS));

    const called = await inspector(test, '--method', 'tools/call', '--tool-name', 'get_credits');
    expect([called.code, called.stdout.slice(0, 300)]).toEqual([0, expect.any(String)]);
    const result = JSON.parse(called.stdout) as CallToolResult;
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toMatchObject({ paid_access: true });
  });
});
