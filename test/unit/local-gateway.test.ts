import http, { type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent } from 'aws-lambda';
import { apiRequestListener } from '#bin/local-stack/api-server';
import { headerOf, readCall } from '#bin/local-stack/proxy-event';
import { headerValue } from '#http/headers';
import { idempotencyKeyOf, parsePagination } from '#http/request';
import { AuthorizerCache, policyAllows } from '#bin/local-stack/authorizer-cache';
import { createRouter } from '#bin/local-stack/router';
import { wholeApiArn } from '#handlers/authorizer';
import { acceptsApiKeys, gatewayAccess, type Route } from '#http/route';
import { GATEWAY_MESSAGES } from '#contract/errors';

const METHOD_ARN = 'arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/GET/api/v1/credits';
const OTHER_ARN = 'arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/POST/api/v1/generate';

const policy = (resource: string, effect: 'Allow' | 'Deny' = 'Allow'): APIGatewayAuthorizerResult => ({
  principalId: 'acc_1',
  policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: resource }] },
});

describe('authorizer policy', () => {
  it('covers every route of the stage, so a cached answer is valid everywhere', () => {
    const resource = wholeApiArn(METHOD_ARN);
    expect(resource).toBe('arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/*');
    expect(policyAllows(policy(resource), METHOD_ARN)).toBe(true);
    expect(policyAllows(policy(resource), OTHER_ARN)).toBe(true);
    expect(policyAllows(policy(resource), OTHER_ARN.replace('/prod/', '/dev/'))).toBe(false);
  });

  it('would deny other routes had it named only the calling method', () => {
    expect(policyAllows(policy(METHOD_ARN), OTHER_ARN)).toBe(false);
  });

  it('lets an explicit Deny win', () => {
    expect(policyAllows(policy(wholeApiArn(METHOD_ARN), 'Deny'), METHOD_ARN)).toBe(false);
  });
});

describe('AuthorizerCache', () => {
  it('keeps an answer for the TTL only', () => {
    const cache = new AuthorizerCache(60);
    const answer = policy('*');
    cache.set('Bearer a', answer, 1_000);
    expect(cache.get('Bearer a', 60_999)).toBe(answer);
    expect(cache.get('Bearer a', 61_000)).toBeUndefined();
    expect(cache.get('Bearer b', 1_000)).toBeUndefined();
  });

  it('caches nothing with a TTL of 0, as API Gateway does', () => {
    const cache = new AuthorizerCache(0);
    cache.set('Bearer a', policy('*'), 1_000);
    expect(cache.get('Bearer a', 1_000)).toBeUndefined();
  });
});

describe('local router', () => {
  const match = createRouter([
    { method: 'GET', path: '/api/v1/videos', handler: 'list', callers: 'apiKey' },
    { method: 'GET', path: '/api/v1/videos/{video_id}', handler: 'get', callers: 'apiKey' },
  ]);

  it('matches exact paths and extracts path parameters', () => {
    expect(match('GET', '/api/v1/videos')).toEqual({ route: expect.objectContaining({ handler: 'list' }), pathParameters: null });
    expect(match('GET', '/api/v1/videos/vid_1')?.pathParameters).toEqual({ video_id: 'vid_1' });
  });

  it('refuses other methods, longer paths and trailing segments', () => {
    expect(match('POST', '/api/v1/videos')).toBeUndefined();
    expect(match('GET', '/api/v1/videos/a/b')).toBeUndefined();
    expect(match('GET', '/api/v1/videosX')).toBeUndefined();
  });
});

describe('local router: a literal resource wins over a parameter, as on API Gateway', () => {
  // API Gateway matches a request resource by resource, a literal child before a {parameter}
  // sibling: /account/members/invitations is the revoke route's parent, never a holder id.
  const match = createRouter([
    { method: 'DELETE', path: '/api/v1/account/members/{holder_id}', handler: 'remove-member', callers: 'session' },
    { method: 'DELETE', path: '/api/v1/account/members/invitations/{invitation_id}', handler: 'revoke-invitation', callers: 'session' },
  ]);

  it('routes the literal path to its own route and keeps the parameter route for other values', () => {
    expect(match('DELETE', '/api/v1/account/members/invitations/inv_1')).toEqual({ route: expect.objectContaining({ handler: 'revoke-invitation' }), pathParameters: { invitation_id: 'inv_1' } });
    expect(match('DELETE', '/api/v1/account/members/h-1')).toEqual({ route: expect.objectContaining({ handler: 'remove-member' }), pathParameters: { holder_id: 'h-1' } });
    // The literal resource has no DELETE of its own: no route, not a holder named "invitations".
    expect(match('DELETE', '/api/v1/account/members/invitations')).toBeUndefined();
  });
});

describe('local gateway maps of client-chosen names', () => {
  // Names an ordinary object already "has": as keys of a plain {} they broke every route (500).
  const NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];

  const request = (url: string, rawHeaders: string[]) =>
    ({ url, method: 'GET', rawHeaders, socket: { remoteAddress: '127.0.0.1' } }) as unknown as IncomingMessage;

  it('keeps headers and query parameters named like Object.prototype members as plain names', () => {
    const query = NAMES.map((name, i) => `${encodeURIComponent(name)}=q${i}`).join('&');
    const raw = NAMES.flatMap((name, i) => [name, `h${i}`, name, `again${i}`]);
    const call = readCall(request(`/api/v1/credits?${query}&toString=twice`, raw), Buffer.alloc(0));
    NAMES.forEach((name, i) => {
      expect(Object.getOwnPropertyDescriptor(call.headers, name)?.value).toBe(`again${i}`);
      expect(Object.getOwnPropertyDescriptor(call.multiValueHeaders, name)?.value).toEqual([`h${i}`, `again${i}`]);
    });
    expect(Object.getOwnPropertyDescriptor(call.query, '__proto__')?.value).toBe('q0');
    expect(Object.getOwnPropertyDescriptor(call.multiValueQuery, 'toString')?.value).toEqual(['q2', 'twice']);
    expect(headerOf(call, 'constructor')).toBe('again1');
    expect(headerOf(call, 'authorization')).toBeUndefined();
  });

  it('answers such a request without a key with 401 in the envelope, not 500', async () => {
    const server = http.createServer(apiRequestListener({ authCacheTtlSeconds: 0 }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      for (const name of NAMES) {
        const response = await fetch(`http://127.0.0.1:${port}/api/v1/credits?${encodeURIComponent(name)}=1`, {
          headers: name === '__proto__' ? {} : { [name]: 'x' },
        });
        expect([name, response.status, ((await response.json()) as { error?: { code: string } }).error?.code]).toEqual([name, 401, 'unauthorized']);
      }
    } finally {
      server.close();
    }
  });
});

describe('Lambda-side helpers on events as API Gateway sends them (JSON, so such names are own keys)', () => {
  const event = JSON.parse(
    '{"headers":{"__proto__":"a","constructor":"b","toString":"c","Idempotency-Key":"k1"},' +
      '"queryStringParameters":{"__proto__":"1","constructor":"2","toString":"3","page":"2"}}',
  ) as APIGatewayProxyEvent;

  it('reads those names and the real ones', () => {
    expect(headerValue(event, '__proto__')).toBe('a');
    expect(headerValue(event, 'constructor')).toBe('b');
    expect(headerValue(event, 'valueOf')).toBeUndefined();
    expect(idempotencyKeyOf(event)).toBe('k1');
    expect(parsePagination(event)).toEqual({ page: 2, limit: 20 });
  });
});

describe('callers declared on a route', () => {
  // The same handler behind two paths: only the declaration differs.
  const open: Route = { method: 'GET', path: '/api/v1/open', handler: 'get-openapi', callers: 'public' };
  const keyed: Route = { ...open, path: '/api/v1/keyed', callers: 'apiKey' };

  async function keylessStatuses(routes: Route[]): Promise<Record<string, [number, string | undefined]>> {
    const server = http.createServer(apiRequestListener({ authCacheTtlSeconds: 0, routes }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const answers: Record<string, [number, string | undefined]> = {};
      for (const route of routes) {
        const response = await fetch(`http://127.0.0.1:${port}${route.path}`);
        const body = (await response.json()) as { error?: { code: string } };
        answers[`${route.callers}`] = [response.status, body.error?.code];
      }
      return answers;
    } finally {
      server.close();
    }
  }

  it("let a request without a key through to a 'public' route and answer an 'apiKey' route's with 401", async () => {
    expect(await keylessStatuses([open, keyed])).toEqual({ public: [200, undefined], apiKey: [401, 'unauthorized'] });
  });

  it("put a 'session' route behind the authorizer like an 'apiKey' one: 401 without a credential", async () => {
    const session: Route = { ...open, path: '/api/v1/console', callers: 'session' };
    expect(await keylessStatuses([open, session])).toEqual({ public: [200, undefined], session: [401, 'unauthorized'] });
  });

  it('are read the same way by every builder: public alone, the authorizer for keys and sessions, or a clear refusal', () => {
    expect(gatewayAccess(open)).toBe('public');
    expect(gatewayAccess(keyed)).toBe('authorizer');
    expect(gatewayAccess({ ...open, callers: ['apiKey'] })).toBe('authorizer');
    expect(gatewayAccess({ ...open, callers: 'session' })).toBe('authorizer');
    expect([acceptsApiKeys(keyed), acceptsApiKeys({ ...open, callers: 'session' }), acceptsApiKeys({ ...open, callers: ['apiKey', 'session'] })]).toEqual([true, false, true]);
    expect(() => gatewayAccess({ ...open, callers: [] })).toThrow(/declares no callers/);
    expect(() => gatewayAccess({ ...open, callers: ['public', 'apiKey'] })).toThrow(/declare 'public' alone/);
  });
});

describe('methods a route refuses', () => {
  it('answers GET and DELETE on /api/v1/mcp with 405 method_not_allowed and Allow: POST, before any key; other methods stay 404', async () => {
    const server = http.createServer(apiRequestListener({ authCacheTtlSeconds: 0 }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const answer = async (method: string, path: string) => {
        const response = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers: { Accept: 'text/event-stream' } });
        return [method, path, response.status, response.headers.get('allow'), Boolean(response.headers.get('x-request-id')), await response.json()];
      };
      const refused = { data: null, error: { code: 'method_not_allowed', message: GATEWAY_MESSAGES.methodNotAllowed } };
      expect(await answer('GET', '/api/v1/mcp')).toEqual(['GET', '/api/v1/mcp', 405, 'POST', true, refused]);
      expect(await answer('DELETE', '/api/v1/mcp/')).toEqual(['DELETE', '/api/v1/mcp/', 405, 'POST', true, refused]);
      expect(await answer('PUT', '/api/v1/mcp')).toEqual(['PUT', '/api/v1/mcp', 404, null, true, expect.objectContaining({ error: expect.objectContaining({ code: 'not_found' }) })]);
      expect(await answer('GET', '/api/v1/mcp/x')).toEqual(['GET', '/api/v1/mcp/x', 404, null, true, expect.objectContaining({ error: expect.objectContaining({ code: 'not_found' }) })]);
    } finally {
      server.close();
    }
  });
});
