import path from 'node:path';
import { gatewayAccess, type Caller } from '#http/route';
import { ROUTES } from '#http/routes/index';
import type { HttpHandler } from '#http/http-handler';
import { isStreamingHandler } from '#bin/lambda-streaming.cjs';

const HANDLERS_DIR = path.resolve(__dirname, '..', '..', 'functions', 'handlers');
const callersOf = (callers: Caller | readonly Caller[]): readonly Caller[] => (typeof callers === 'string' ? [callers] : callers);

/** Every route an API key may call needs a scope; its handler checks the same access its route declares. */
describe('route scopes', () => {
  const keyed = ROUTES.filter((route) => callersOf(route.callers).includes('apiKey'));
  const sessionOnly = ROUTES.filter((route) => callersOf(route.callers).every((caller) => caller === 'session'));

  it.each(keyed.map((route) => [`${route.method} ${route.path}`, route] as const))('%s names a scope its handler checks', (_, route) => {
    expect(route.scope).toBeDefined();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { handler } = require(path.join(HANDLERS_DIR, route.handler)) as { handler: HttpHandler };
    expect(handler.access).toEqual({ scope: route.scope });
  });

  it.each(sessionOnly.map((route) => [`${route.method} ${route.path}`, route] as const))('%s (account holders only) refuses API keys', (_, route) => {
    expect(route.scope).toBeUndefined();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { handler } = require(path.join(HANDLERS_DIR, route.handler)) as { handler: HttpHandler };
    expect(handler.access).toEqual({ sessionOnly: true });
  });

  it('a route streams (its integration) exactly when its handler does (awslambda.streamifyResponse)', () => {
    const declared = ROUTES.map((route) => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { handler } = require(path.join(HANDLERS_DIR, route.handler)) as { handler: unknown };
      return [route.path, route.streaming === true, isStreamingHandler(handler)];
    });
    expect(declared).toEqual(declared.map(([routePath, streams]) => [routePath, streams, streams]));
    expect(declared.filter(([, streams]) => streams).map(([routePath]) => routePath)).toEqual(['/api/v1/mcp']);
  });

  it('public routes name no scope', () => {
    for (const route of ROUTES.filter((each) => gatewayAccess(each) === 'public')) expect([route.path, route.scope]).toEqual([route.path, undefined]);
  });

  it('follows the contract: GET is read, /webhooks is webhooks, the rest generate', () => {
    // POST /mcp needs read to connect; each of its tools checks the scope of the route it mirrors.
    const reads = (route: (typeof keyed)[number]) => route.method === 'GET' || route.path.endsWith('/quote') || route.path.endsWith('/mcp');
    for (const route of keyed) {
      const expected = route.path.includes('/webhooks') ? 'webhooks' : reads(route) ? 'read' : 'generate';
      expect([route.method, route.path, route.scope]).toEqual([route.method, route.path, expected]);
    }
  });
});
