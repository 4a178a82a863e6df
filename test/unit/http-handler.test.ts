import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { lambdaContext } from '#bin/lambda-context.cjs';
import type { ApiKeyPrincipal, Principal } from '#domain/accounts/principal';
import type { RateDecision, RateLimiter } from '#domain/accounts/rate-limit';
import { ServiceBusyError } from '#domain/shared/errors';
import { takeLogs } from '#test-support/log-capture';
import { httpHandler, streamedApiHandler } from '#http/http-handler';
import { invokeStreaming, isStreamingHandler, readAll } from '#bin/lambda-streaming.cjs';
import { authorizerContext } from '#http/principal';
import { defineFunction, type CallerKind, type Capability } from '#spec/function-spec';

const principal: ApiKeyPrincipal = { kind: 'apiKey', partitionId: 'acc_1', mode: 'live', keyId: 'key_a', rateLimit: 7, scopes: ['read', 'webhooks'] };
const eventOf = (caller: ApiKeyPrincipal): APIGatewayProxyEvent =>
  ({
    httpMethod: 'GET',
    path: '/api/v1/credits',
    headers: {},
    body: null,
    requestContext: { requestId: 'req_1', authorizer: { principalId: 'acc_1', ...authorizerContext(caller) } },
  }) as unknown as APIGatewayProxyEvent;
const event = eventOf(principal);

/** A route's spec with this access (the handler reads only the access, the JSON body flag and streaming). */
function route<const C extends readonly [CallerKind, ...CallerKind[]]>(capability: Capability, callers: C) {
  return defineFunction({
    name: 'test-route',
    purpose: 'a route under test',
    area: 'account',
    trigger: { kind: 'http', method: 'GET', path: '/credits' },
    access: { callers, capability },
    needs: {},
  });
}
const READ = route('read', ['apiKey', 'session']);
const GENERATE = route('generate', ['apiKey', 'session']);
const SESSION_ONLY = route('keys', ['session']);
const streaming = <S extends ReturnType<typeof route>>(spec: S) => ({ ...spec, trigger: { ...spec.trigger, streaming: true as const } });

/** A limiter that records whom it was asked about and answers `decision`. */
function limiter(decision: RateDecision): RateLimiter & { asked: Principal[] } {
  const asked: Principal[] = [];
  return { asked, consume: async (who) => (asked.push(who), decision) };
}

describe('httpHandler with an injected rate limiter', () => {
  it('asks it about the principal from the authorizer context, then runs the logic with the same principal', async () => {
    const injected = limiter({ allowed: true, limit: 7, remaining: 6, resetAt: 1795284300 });
    const seen: Principal[] = [];
    const handler = httpHandler(READ, async (input) => (seen.push(input.principal), { ok: true }), { rateLimiter: injected });
    const response = (await handler(event, lambdaContext('test', { requestId: 'req_1' }))) as APIGatewayProxyResult;
    expect(response.statusCode).toBe(200);
    expect(injected.asked).toEqual([principal]);
    expect(seen).toEqual([principal]);
    expect(response.headers).toMatchObject({ 'X-RateLimit-Limit': '7', 'X-RateLimit-Remaining': '6' });
  });

  it('answers 429 with Retry-After when it refuses, without running the logic', async () => {
    const injected = limiter({ allowed: false, limit: 7, remaining: 0, resetAt: 1795284300, retryAfter: 12 });
    let ran = false;
    const handler = httpHandler(READ, async () => ((ran = true), {}), { rateLimiter: injected });
    const response = (await handler(event, lambdaContext('test', { requestId: 'req_1' }))) as APIGatewayProxyResult;
    expect([response.statusCode, response.headers?.['Retry-After'], ran]).toEqual([429, '12', false]);
    expect(JSON.parse(response.body)).toMatchObject({ data: null, error: { code: 'rate_limit_exceeded' } });
  });

  it('answers a busy dependency 503 internal_error with Retry-After', async () => {
    const injected = limiter({ allowed: true, limit: 7, remaining: 6, resetAt: 1795284300 });
    const handler = httpHandler(READ, async () => Promise.reject(Object.assign(new ServiceBusyError(), { cause: Object.assign(new Error('timed out'), { name: 'TimeoutError' }) })), { rateLimiter: injected });
    const response = (await handler(event, lambdaContext('test', { requestId: 'req_1' }))) as APIGatewayProxyResult;
    expect([response.statusCode, response.headers?.['Retry-After']]).toEqual([503, '1']);
    expect(JSON.parse(response.body)).toMatchObject({ data: null, error: { code: 'internal_error', message: new ServiceBusyError().message } });
    expect(takeLogs().map(({ level, message }) => `${level} ${message}`)).toEqual(['WARN request failed: a dependency was busy']);
  });

  it("answers 503 with Retry-After, not 500, when the function's time runs out (middy's early timeout): a slow dependency, not a bug", async () => {
    const injected = limiter({ allowed: true, limit: 7, remaining: 6, resetAt: 1795284300 });
    // Never settles: the Lambda deadline (200 ms here) ends it, as a DynamoDB Local under heavy load once did after 28 s.
    const handler = httpHandler(READ, () => new Promise(() => undefined), { rateLimiter: injected });
    const response = (await handler(event, lambdaContext('test', { requestId: 'req_1', timeoutMs: 200 }))) as APIGatewayProxyResult;
    expect([response.statusCode, response.headers?.['Retry-After']]).toEqual([503, '1']);
    expect(JSON.parse(response.body)).toMatchObject({ data: null, error: { code: 'internal_error', message: new ServiceBusyError().message } });
    expect(takeLogs()).toEqual([expect.objectContaining({ level: 'WARN', message: 'request failed: a dependency was busy', attributes: expect.objectContaining({ cause: 'TimeoutError', status: 503 }) })]);
  });

  it('answers 403 forbidden naming the scope when the key lacks it, after counting the request, without running the logic', async () => {
    const injected = limiter({ allowed: true, limit: 7, remaining: 6, resetAt: 1795284300 });
    let ran = false;
    const handler = httpHandler(GENERATE, async () => ((ran = true), {}), { rateLimiter: injected });
    const response = (await handler(event, lambdaContext('test', { requestId: 'req_1' }))) as APIGatewayProxyResult;
    expect([response.statusCode, ran, injected.asked.length]).toEqual([403, false, 1]);
    expect(response.headers).toMatchObject({ 'X-RateLimit-Remaining': '6' });
    expect(JSON.parse(response.body)).toEqual({
      data: null,
      error: { code: 'forbidden', message: 'This API key does not have the "generate" scope this endpoint needs.' },
    });
  });

  it('answers 403 forbidden to an API key on an endpoint for account holders only', async () => {
    const injected = limiter({ allowed: true, limit: 7, remaining: 6, resetAt: 1795284300 });
    const handler = httpHandler(SESSION_ONLY, async () => ({}), { rateLimiter: injected });
    const response = (await handler(event, lambdaContext('test', { requestId: 'req_1' }))) as APIGatewayProxyResult;
    expect(response.statusCode).toBe(403);
    expect(JSON.parse(response.body).error).toMatchObject({ code: 'forbidden', message: expect.stringContaining('signed-in account holders') });
  });

  it('reads the scopes from the authorizer context: a key with no scopes may call nothing, an old context (no scopes) every scope', async () => {
    const injected = limiter({ allowed: true, limit: 7, remaining: 6, resetAt: 1795284300 });
    const handler = httpHandler(READ, async () => ({}), { rateLimiter: injected });
    const none = (await handler(eventOf({ ...principal, scopes: [] }), lambdaContext('test', { requestId: 'req_1' }))) as APIGatewayProxyResult;
    expect(none.statusCode).toBe(403);
    const old = eventOf(principal);
    delete (old.requestContext.authorizer as Record<string, unknown>).scopes;
    const cached = (await handler(old, lambdaContext('test', { requestId: 'req_1' }))) as APIGatewayProxyResult;
    expect(cached.statusCode).toBe(200);
  });
});

describe('httpHandler with sessions', () => {
  const session = { kind: 'session', partitionId: 'acc_1', mode: 'live', holderId: 'sub-1', email: 'a@example.com', rateLimit: 9, accountId: 'acc_1', role: 'owner', memberships: [{ accountId: 'acc_1', role: 'owner' }] } as const;
  const sessionEvent = (headers: Record<string, string> = {}) =>
    ({ ...event, headers, requestContext: { requestId: 'req_2', authorizer: { principalId: 'acc_1', ...authorizerContext(session) } } }) as unknown as APIGatewayProxyEvent;
  const allow = () => limiter({ allowed: true, limit: 9, remaining: 8, resetAt: 1795284300 });

  it("acts on the test scope when Vidgen-Mode says test, and the authorizer's context names no mode", async () => {
    expect(authorizerContext(session)).not.toHaveProperty('mode');
    const seen: Principal[] = [];
    const handler = httpHandler(READ, async (input) => (seen.push(input.principal), {}), { rateLimiter: allow() });
    await handler(sessionEvent({ 'vidgen-mode': 'test' }), lambdaContext('test', { requestId: 'req_2' }));
    await handler(sessionEvent(), lambdaContext('test', { requestId: 'req_2' }));
    expect(seen).toEqual([{ ...session, partitionId: 'acc_1_test', mode: 'test' }, session]);
  });

  it('a session-only handler refuses an API key with 403 forbidden and runs for a session', async () => {
    const handler = httpHandler(SESSION_ONLY, async () => ({ ok: true }), { rateLimiter: allow() });
    const keyed = (await handler(event, lambdaContext('test', { requestId: 'req_1' }))) as APIGatewayProxyResult;
    expect(keyed.statusCode).toBe(403);
    expect(JSON.parse(keyed.body)).toMatchObject({ data: null, error: { code: 'forbidden' } });
    const signedIn = (await handler(sessionEvent(), lambdaContext('test', { requestId: 'req_2' }))) as APIGatewayProxyResult;
    expect(signedIn.statusCode).toBe(200);
  });
});

describe('streamedApiHandler (a route whose integration streams)', () => {
  const allow = () => limiter({ allowed: true, limit: 7, remaining: 6, resetAt: 1795284300 });

  it('is marked for the runtime as streaming and sends status and headers, then each body part as it is written', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(new TextEncoder().encode('first\n'));
        await released;
        controller.enqueue(new TextEncoder().encode('second\n'));
        controller.close();
      },
    });
    const handler = streamedApiHandler(streaming(READ), async () => ({ statusCode: 200, headers: { 'Content-Type': 'text/event-stream' }, body }), { rateLimiter: allow() });
    expect(isStreamingHandler(handler)).toBe(true);

    const answer = await invokeStreaming(handler, event, lambdaContext('test', { requestId: 'req_1' }));
    expect(answer.statusCode).toBe(200);
    expect(answer.headers).toMatchObject({ 'Content-Type': 'text/event-stream', 'X-Request-Id': 'req_1', 'X-RateLimit-Remaining': '6' });
    // The first part arrives while the second is still held back by the handler.
    const reader = answer.body[Symbol.asyncIterator]();
    expect(String((await reader.next()).value)).toBe('first\n');
    release();
    expect(await readAll(answer.body)).toBe('second\n');
  });

  it('sends the status of an answer with an empty body (an MCP notification: 202)', async () => {
    const handler = streamedApiHandler(streaming(READ), async () => ({ statusCode: 202, body: '' }), { rateLimiter: allow() });
    const answer = await invokeStreaming(handler, event, lambdaContext('test', { requestId: 'req_1' }));
    expect([answer.statusCode, answer.headers?.['X-Request-Id'], await readAll(answer.body)]).toEqual([202, 'req_1', '']);
  });

  it('answers an error before the body as the envelope, streamed like any answer', async () => {
    const handler = streamedApiHandler(streaming(GENERATE), async () => ({ statusCode: 200, body: 'never' }), { rateLimiter: allow() });
    const answer = await invokeStreaming(handler, event, lambdaContext('test', { requestId: 'req_1' }));
    expect(answer.statusCode).toBe(403);
    expect(JSON.parse(await readAll(answer.body))).toMatchObject({ data: null, error: { code: 'forbidden' } });
  });
});
