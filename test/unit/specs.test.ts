import { readdirSync } from 'node:fs';
import { ROUTE_DOCS, routesOf } from '#http/routes/index';
import type { FunctionSpec } from '#spec/function-spec';
import { mergeNeeds, RATE_LIMITED } from '#spec/needs';
import { loadSpecs, readSpecs, specOf, validateSpecs, HANDLERS_DIR } from '#spec/registry';

describe('function specs', () => {
  it('exist for every handler, one each, named after it', () => {
    const handlers = readdirSync(HANDLERS_DIR).filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts')).map((file) => file.slice(0, -3));
    expect(loadSpecs().map((spec) => spec.name).sort()).toEqual(handlers.sort());
  });
});

describe('the MCP function', () => {
  it('may do what the routes its tools mirror may do, together (written out in its spec, so no other spec rides in its bundle)', () => {
    const mirrored = ['generate', 'list-videos', 'get-video', 'cancel-video', 'generate-image', 'list-images', 'get-image', 'cancel-image', 'delete-video', 'delete-image', 'upload', 'quote', 'get-credits', 'list-models', 'get-usage'];
    expect(specOf('mcp').needs).toEqual(mergeNeeds([...mirrored.map((name) => specOf(name).needs), { table: { actions: RATE_LIMITED } }]));
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
