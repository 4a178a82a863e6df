import { BUNDLE_ALIASES, BUNDLE_EXTRAS } from '#lib/bundle-extras';
import { FUNCTION_NEEDS, type FunctionNeeds } from '#lib/function-needs';
import { API_PREFIX, ROUTE_DOCS, ROUTES, routesOf } from '#http/routes/index';
import { isHttpSpec, type FunctionSpec } from '#spec/function-spec';
import type { Needs } from '#spec/needs';
import { loadSpecs, readSpecs, validateSpecs, HANDLERS_DIR } from '#spec/registry';

/**
 * The functions' specs (functions/handlers/*.spec.ts) say what the tables they replace said:
 * the needs (lib/function-needs.ts), the routes' callers, scopes, streaming and refused methods,
 * the bundles' aliases and extra files. Transitional: it goes with those tables (issue 33, C11).
 */
const sorted = <T>(values: readonly T[] | undefined) => [...(values ?? [])].sort();

function fromOld(needs: FunctionNeeds) {
  return {
    purpose: needs.purpose,
    table: { actions: sorted(needs.table.actions), query: sorted(needs.table.query) },
    media: { read: sorted(needs.media?.read), write: sorted(needs.media?.write), delete: sorted(needs.media?.delete), listBucket: needs.media?.listBucket === true },
    queues: sorted(needs.queues?.send),
    providers: needs.provider === true,
    copiesResults: needs.copiesResults === true,
    thumbnails: needs.makesThumbnails === true,
    invokes: needs.queuesCopies ? ['copy-output'] : [],
    stripe: needs.stripe === undefined ? undefined : sorted(needs.stripe),
  };
}

function fromSpec(spec: FunctionSpec) {
  const needs: Needs = spec.needs;
  return {
    purpose: spec.purpose,
    table: { actions: sorted(needs.table?.actions), query: sorted(needs.table?.query) },
    media: { read: sorted(needs.media?.read), write: sorted(needs.media?.write), delete: sorted(needs.media?.delete), listBucket: needs.media?.listBucket === true },
    queues: sorted(needs.queues),
    providers: needs.providers === true,
    copiesResults: needs.copiesResults === true,
    thumbnails: needs.thumbnails === true,
    invokes: sorted(needs.invokes),
    stripe: needs.stripe === undefined ? undefined : sorted(needs.stripe),
  };
}

describe('function specs', () => {
  const specs = loadSpecs();

  it('exist for every function, one per handler, named after it', () => {
    expect(specs.map((spec) => spec.name).sort()).toEqual(Object.keys(FUNCTION_NEEDS).sort());
  });

  it('need what lib/function-needs.ts granted', () => {
    for (const spec of specs) expect([spec.name, fromSpec(spec)]).toEqual([spec.name, fromOld(FUNCTION_NEEDS[spec.name]!)]);
    expect(specs.filter((spec) => spec.needs.identity).map((spec) => spec.name)).toEqual(['authorizer']);
  });

  it('declare the routes of the route table: method, path, callers, scope, streaming, refused methods', () => {
    const fromSpecs = specs.filter(isHttpSpec).map((spec) => {
      const access = spec.access as { callers: readonly string[]; capability?: string };
      return {
        handler: spec.name,
        method: spec.trigger.method,
        path: `${API_PREFIX}${spec.trigger.path}`,
        // A key route takes sessions too: what the table said with 'apiKey' alone.
        callers: access.callers.includes('apiKey') ? ['apiKey', 'session'] : [...access.callers],
        scope: access.callers.includes('apiKey') ? access.capability : undefined,
        streaming: spec.trigger.streaming,
        refusedMethods: spec.trigger.refusedMethods,
      };
    });
    const fromTable = ROUTES.map((route) => {
      const callers = typeof route.callers === 'string' ? [route.callers] : [...route.callers];
      return {
        handler: route.handler,
        method: route.method,
        path: route.path,
        callers: callers.includes('apiKey') ? ['apiKey', 'session'] : callers,
        scope: route.scope,
        streaming: route.streaming,
        refusedMethods: route.refusedMethods,
      };
    });
    const byHandler = (a: { handler: string }, b: { handler: string }) => a.handler.localeCompare(b.handler);
    expect(fromSpecs.sort(byHandler)).toEqual(fromTable.sort(byHandler));
  });

  it("declare the bundles' aliases and run-time files", () => {
    expect(specs.filter((spec) => spec.bundle?.leaveOut).map((spec) => [spec.name, sorted(spec.bundle?.leaveOut)])).toEqual(
      Object.entries(BUNDLE_ALIASES).map(([name, aliases]) => [name, Object.keys(aliases).sort()]),
    );
    expect(specs.filter((spec) => spec.bundle?.files).map((spec) => spec.name).sort()).toEqual(Object.keys(BUNDLE_EXTRAS).sort());
  });
});

describe('the route table: each route spec joined with its doc', () => {
  it('refuses a spec without a doc, a doc twice, a doc of no route', () => {
    expect(routesOf().map((route) => route.handler)).toEqual(ROUTE_DOCS.map((entry) => entry.handler));
    const [first, ...rest] = ROUTE_DOCS;
    expect(() => routesOf(rest)).toThrow(`${first!.handler} has none`);
    expect(() => routesOf([first!, ...ROUTE_DOCS])).toThrow(`${first!.handler} has two`);
    expect(() => routesOf([...ROUTE_DOCS, { handler: 'sweeper', doc: first!.doc }])).toThrow('documents sweeper, which is not a function behind a route');
  });
});

describe('validateSpecs', () => {
  const entries = () => readSpecs(HANDLERS_DIR).map(({ file, spec }) => ({ file, spec: structuredClone(spec) as FunctionSpec }));
  const replace = (name: string, change: (spec: FunctionSpec) => FunctionSpec) =>
    entries().map((entry) => (entry.spec.name === name ? { ...entry, spec: change(entry.spec) } : entry));

  it('refuses a spec named unlike its file, a route declared twice, a public route with a capability', () => {
    expect(() => validateSpecs(replace('get-credits', (spec) => ({ ...spec, name: 'credits' })))).toThrow('get-credits.spec.ts declares "credits"');
    expect(() => validateSpecs(replace('get-account', (spec) => ({ ...spec, trigger: { kind: 'http', method: 'GET', path: '/credits' } })))).toThrow(
      'GET /credits is declared by',
    );
    expect(() => validateSpecs(replace('get-docs', (spec) => ({ ...spec, access: { callers: ['public'], checks: 'nothing', capability: 'read' } as never })))).toThrow(
      "'public' stands alone",
    );
  });

  it('refuses an invoke of a function that is not invoked asynchronously, and a resource split over two areas', () => {
    expect(() => validateSpecs(replace('get-video', (spec) => ({ ...spec, needs: { ...spec.needs, invokes: ['sweeper'] } })))).toThrow('invokes "sweeper"');
    expect(() => validateSpecs(replace('get-image', (spec) => ({ ...spec, area: 'events' })))).toThrow('/images belongs to the');
  });
});
