import path from 'node:path';
import { build, type Metafile } from 'esbuild';
import { aliasesOf } from '#lib/bundle-options';
import { AWS_SDK_EXTERNALS, BUNDLE_DEFINE, BUNDLE_TARGET, HANDLERS_DIR, NATIVE_EXTERNALS } from '#lib/constructs/api-function';
import { loadSpecs } from '#spec/registry';
import { REPO_ROOT } from '#test-support/run-script';

/**
 * What esbuild really puts in each function's bundle, built as the stack builds it (one
 * in-process build per function, its spec's left-out packages, the bundles' compile-time
 * constants): the dependency rules (.dependency-cruiser.cjs) read the imports, this reads the
 * result, so a lazy import that is not dead code after all, or a leak through a package, shows.
 */
const specs = loadSpecs();
const inputs = new Map<string, string[]>();
const graphs = new Map<string, ImportGraph>();

beforeAll(async () => {
  for (const spec of specs) {
    const { metafile } = await build({
      absWorkingDir: REPO_ROOT,
      entryPoints: [path.join(HANDLERS_DIR, `${spec.name}.ts`)],
      bundle: true,
      write: false,
      metafile: true,
      minify: true,
      platform: 'node',
      format: 'cjs',
      target: BUNDLE_TARGET,
      outfile: `out/${spec.name}/index.js`,
      external: [...AWS_SDK_EXTERNALS, ...NATIVE_EXTERNALS],
      define: { ...BUNDLE_DEFINE },
      alias: aliasesOf(spec),
      logLevel: 'silent',
    });
    inputs.set(spec.name, bundledInputs(metafile));
    graphs.set(spec.name, importGraph(metafile, path.relative(REPO_ROOT, path.join(HANDLERS_DIR, `${spec.name}.ts`))));
  }
}, 120_000);

/** The inputs that contribute bytes to the output (esbuild lists the dead ones with 0). */
function bundledInputs(metafile: Metafile): string[] {
  const [output] = Object.values(metafile.outputs);
  return Object.entries(output!.inputs)
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([file]) => file.split(path.sep).join('/'))
    .sort();
}

/** What the entry reaches: through any import, and through the imports evaluated as it loads (not `import()`). */
interface ImportGraph {
  all: Set<string>;
  atLoad: Set<string>;
}

/** Files by their path in the repository, packages left out by their name (`@aws-sdk/client-sqs`). */
function importGraph(metafile: Metafile, entry: string): ImportGraph {
  const reach = (follow: (kind: string) => boolean) => {
    const seen = new Set<string>();
    const stack = [entry.split(path.sep).join('/')];
    while (stack.length > 0) {
      const file = stack.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      for (const imported of metafile.inputs[file]?.imports ?? []) if (follow(imported.kind)) stack.push(imported.path);
    }
    return seen;
  };
  return { all: reach(() => true), atLoad: reach((kind) => kind !== 'dynamic-import') };
}

const offending = (handler: string, pattern: RegExp) => (inputs.get(handler) ?? []).filter((file) => pattern.test(file));

describe("the functions' bundles", () => {
  it('carry no route table, API reference prose, spec registry, OpenAPI generator, CDK app or tool', () => {
    const leaks = /^functions\/http\/routes\/(?!prefix\.ts$)|^functions\/openapi\/document\.ts$|^functions\/spec\/registry\.ts$|@asteasolutions\/zod-to-openapi|^(lib|bin|bench|test)\/|node_modules\/(aws-cdk-lib|constructs)\//;
    expect(specs.map((spec) => [spec.name, offending(spec.name, leaks)])).toEqual(specs.map((spec) => [spec.name, []]));
  });

  it("carry their own spec and no other function's (the MCP function's needs are written out, not merged from eleven specs)", () => {
    const otherSpecs = (handler: string) => offending(handler, /^functions\/handlers\/[^/]+\.spec\.ts$/).filter((file) => file !== `functions/handlers/${handler}.spec.ts`);
    expect(specs.map((spec) => [spec.name, otherSpecs(spec.name)])).toEqual(specs.map((spec) => [spec.name, []]));
  });

  it("carry neither the simulated provider's renderers (sharp, ffmpeg) nor a left-out package", () => {
    // media/errors.ts holds the renderers' error classes apart, with no native import, for the provider to recognise.
    const renderers = /^functions\/providers\/simulated\/media\/(?!errors\.ts$)|node_modules\/(sharp|@ffmpeg-installer)\//;
    expect(specs.flatMap((spec) => offending(spec.name, renderers))).toEqual([]);
    for (const spec of specs) {
      for (const name of spec.bundle?.leaveOut ?? []) expect([spec.name, offending(spec.name, new RegExp(`node_modules/${name}/`))]).toEqual([spec.name, []]);
    }
  });

  it('authorizer: no provider, no Stripe, no MCP SDK, no classic zod (it runs before every request)', () => {
    const heavy = /^functions\/providers\/(?!simulated\/defaults\.ts$)|node_modules\/(stripe|@modelcontextprotocol)\/|node_modules\/zod\/v4\/classic\//;
    expect(offending('authorizer', heavy)).toEqual([]);
    expect(inputs.get('authorizer')!.length).toBeGreaterThan(10);
  });

  it("Stripe's client only where the spec names Stripe", () => {
    const stripe = /node_modules\/stripe\//;
    const carriers = specs.filter((spec) => offending(spec.name, stripe).length > 0).map((spec) => spec.name);
    expect(carriers.every((name) => specs.find((spec) => spec.name === name)!.needs.stripe !== undefined)).toBe(true);
  });

  /*
   * The task lifecycle's ports that a function may never use are built on first use, through
   * `import()` (functions/app-context/lifecycle.ts, copy-worker.ts, queues.ts, provider.ts):
   * esbuild then wraps them in lazy initializers, so GET /videos/{id} does not evaluate the SQS
   * or Lambda clients, Secrets Manager, ffmpeg's thumbnails or the budget at cold start. One
   * static import would undo that. Each is a leaf: what a dynamic import reaches is wrapped
   * too, so importing a wiring module this way would wrap (and grow) the whole bundle.
   */
  const LAZY = [
    '@aws-sdk/client-sqs',
    '@aws-sdk/client-lambda',
    '@aws-sdk/client-secrets-manager',
    'functions/adapters/queues/sqs-queue.ts',
    'functions/adapters/copy-queues.ts',
    'functions/adapters/ffmpeg-thumbnails.ts',
    'functions/domain/providers/budget.ts',
  ];

  it('get-video, generate and mcp reach the SQS and Lambda clients, Secrets Manager, ffmpeg and the budget only through import()', () => {
    for (const name of ['get-video', 'generate', 'mcp']) {
      const graph = graphs.get(name)!;
      expect([name, LAZY.filter((module) => !graph.all.has(module))]).toEqual([name, []]);
      expect([name, LAZY.filter((module) => graph.atLoad.has(module))]).toEqual([name, []]);
    }
  });

  it('no function that starts, follows or copies tasks loads a lazy port as it loads', () => {
    const lifecycleUsers = specs.filter((spec) => spec.needs.providers || spec.needs.copiesResults).map((spec) => spec.name);
    expect(lifecycleUsers).toContain('copy-output');
    const loaded = lifecycleUsers.map((name) => [name, LAZY.filter((module) => graphs.get(name)!.atLoad.has(module))]);
    expect(loaded).toEqual(lifecycleUsers.map((name) => [name, []]));
  });
});
