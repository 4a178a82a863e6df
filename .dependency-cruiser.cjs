/**
 * Dependency rules ESLint cannot check: ESLint sees one file's imports; a leak into a Lambda
 * bundle is transitive (Hardening 4: app-context/billing.ts -> #openapi/server-url -> the route
 * table put the API reference's prose into four bundles). `npm run lint` runs this over functions/.
 * Dynamic imports are lazy loading points (the local stack's document builder, the simulated
 * provider's renderers, dropped from the bundles as dead code): they are not followed here;
 * test/process/bundle-graph.test.ts checks what esbuild really bundles.
 */
const HANDLERS = '^functions/handlers/[^/]+[.]ts$';
const SPECS = '[.]spec[.]ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A module circle makes load order matter and hides layering; break it with a port or a smaller module.',
      from: { path: '^functions/' },
      // A circle closed only by `import type` edges is erased at compile time, so load order
      // cannot depend on it: the domain's ports name their aggregate's types (webhooks/ports.ts
      // <-> webhooks.ts, tasks/ports.ts <-> transitions.ts) and the use cases name the ports.
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'no-orphans',
      severity: 'error',
      comment: 'A module nothing imports (and that imports nothing) is dead code. Handlers and specs are entry points.',
      from: { orphan: true, path: '^functions/', pathNot: [HANDLERS, SPECS, '[.]d[.]ts$', '^functions/mcp/not-bundled[.]ts$'] },
      to: {},
    },
    {
      name: 'handlers-not-reach-docs',
      severity: 'error',
      comment:
        "A handler's bundle never carries the route table, the API reference's prose, the spec registry (it reads the file system), the CDK app or tools.",
      from: { path: HANDLERS },
      to: {
        reachable: true,
        path: ['^functions/http/routes/(?!prefix[.]ts$)', '^functions/openapi/document[.]ts$', '^functions/spec/registry[.]ts$', '^(lib|bin|bench|test)/', 'node_modules/(aws-cdk-lib|constructs)/'],
      },
    },
    {
      name: 'authorizer-lean',
      severity: 'error',
      comment: "The authorizer runs before every request: no provider, no Stripe, no MCP SDK, no contract schemas' zod classic.",
      from: { path: '^functions/handlers/authorizer[.]ts$' },
      // The simulated provider's defaults are one constant functions/config/ reads (no code, no zod).
      to: { reachable: true, path: ['^functions/providers/', 'node_modules/(stripe|@modelcontextprotocol)/'], pathNot: '^functions/providers/simulated/defaults[.]ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|cdk[.]out|[.]data|console|client)/', dynamic: true },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.cjs', '.js', '.json'],
    },
  },
};
