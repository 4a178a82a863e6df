// `npm run lint` (run by `npm test`): ESLint's and typescript-eslint's recommended rules.
// Not the type-aware presets: they would type-check the whole project a second time on every run.
import fs from 'node:fs';
import eslint from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * Layering that checks itself. Each area (a folder of functions/, lib, bin, bench, a folder of
 * test/, client/src) reaches another only through its `#area/...` subpath import (package.json
 * "imports"), never by a relative path that climbs out of it; and some areas may not reach
 * others at all. no-restricted-imports matches the written specifier, so the climb-out ban is
 * generated per folder depth, and each area's own bans ride in the same block (in flat config the
 * last block naming a rule for a file wins).
 */
const AREA_RULES = {
  'functions/domain': {
    regex: '^#(?!domain(/|$))',
    message: 'domain/ is the core: it imports only domain/ (each aggregate declares its ports in its own ports.ts).',
    packages: ['@aws-sdk/*', '@aws-lambda-powertools/*', 'aws-lambda', '@middy/*', 'zod', 'standardwebhooks', 'sharp'],
    // The aggregates and what each may import, in dependency order (test/unit/domain-structure.test.ts checks the same).
    subareas: {
      shared: [],
      catalogue: ['shared'],
      accounts: ['shared', 'catalogue'],
      billing: ['shared', 'catalogue', 'accounts'],
      providers: ['shared', 'catalogue'],
      tasks: ['shared', 'catalogue', 'accounts', 'providers'],
      webhooks: ['shared', 'catalogue', 'accounts', 'tasks'],
      uploads: ['shared', 'catalogue'],
    },
  },
  'functions/contract': {
    regex: '^#(?!(domain|contract)(/|$))',
    message: 'contract/ describes the wire format over the domain: it imports only domain/.',
  },
  'functions/http': {
    regex: '^#(app-context|handlers|queue)(/|$)',
    message: 'http/ is the handlers\' toolkit: the wiring (app-context/) passes it what it needs.',
  },
  'functions/adapters': {
    regex: '^#(app-context|handlers|http|queue|providers|openapi)(/|$)',
    message: 'adapters/ implement domain ports: they import domain/ and observability/ only.',
  },
  'functions/providers': {
    regex: '^#(app-context|handlers|http|queue)(/|$)',
    message: 'providers/ are adapters of the provider port: no wiring, handlers or HTTP.',
  },
  'functions/app-context': {
    regex: '^#handlers(/|$)',
    message: 'app-context/ wires the pieces handlers use; it does not import handlers.',
  },
  'functions/spec': {
    regex: '^#(?!(spec|domain|adapters)(/|$))',
    message: 'spec/ is data every bundle carries: it imports only spec/, and types from domain/ and adapters/.',
    typesOnly: { regex: '^#(domain|adapters)/', message: 'spec/ takes only types from domain/ and adapters/ (a spec is data in every bundle).' },
  },
};

/**
 * The route table carries every route's OpenAPI prose: in a function's bundle it is dead weight
 * (one import of API_PREFIX through it once added ~80 KB to four billing bundles). Function code
 * takes the prefix from `#http/routes/prefix`; only openapi/ (the document) and the route files
 * themselves read the table. lib/, bin/ and test/ run outside Lambda and may.
 */
const ROUTE_TABLE_FREE = /^functions\/(?!openapi$)/;
const ROUTE_TABLE_BAN = {
  regex: '^#http/routes/(?!prefix$)',
  message: 'The route table stays out of function bundles: import API_PREFIX from #http/routes/prefix (only openapi/ reads the table).',
};

/**
 * The old paths of the domain's files (before issue 32; their shims are gone): our own files
 * import the aggregate folders.
 */
const DOMAIN_SHIM_BAN = {
  regex: '^#domain/[^/]+$',
  message: 'An old domain path (a shim): import the file from its aggregate folder (run npx tsx bin/codemods/domain-moves.ts --no-move).',
};

function subfolders(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => `${dir}/${entry.name}`);
}

function layering() {
  const areas = [...subfolders('functions'), 'lib', 'bin', 'bench', ...subfolders('test'), 'client/src'];
  const blocks = [];
  for (const area of areas) {
    const own = AREA_RULES[area];
    for (let depth = 1; depth <= 4; depth += 1) {
      const patterns = [
        {
          // JSON data (a model list, the OpenAPI document) is read where it lies.
          regex: `^(\\.\\./){${depth}}(?!.*\\.json$)`,
          message: `This climbs out of ${area}/: import another area through its #alias (package.json "imports").`,
        },
        DOMAIN_SHIM_BAN,
      ];
      if (own) patterns.push({ regex: own.regex, message: own.message });
      if (own?.typesOnly) patterns.push({ ...own.typesOnly, allowTypeImports: true });
      if (own?.packages) patterns.push({ group: own.packages, message: 'domain/ stays free of AWS, HTTP and wire-format libraries.' });
      if (ROUTE_TABLE_FREE.test(area)) patterns.push(ROUTE_TABLE_BAN);
      blocks.push({
        files: [`${area}/${'*/'.repeat(depth - 1)}*.ts`],
        rules: { 'no-restricted-imports': ['error', { patterns }] },
      });
      // An aggregate's files: the same patterns, and the aggregates it may not import (relative or #domain/).
      for (const [subarea, allowed] of Object.entries(own?.subareas ?? {})) {
        if (depth === 1) continue;
        const others = Object.keys(own.subareas).filter((name) => name !== subarea && !allowed.includes(name));
        const up = '\\.\\./'.repeat(depth - 1);
        const banned = [
          { regex: `^${up}[^./][^/]*$`, message: `${subarea}/ imports an old domain path (a shim): import the file from its aggregate folder.` },
          ...(others.length > 0
            ? [{ regex: `^(${up}|#domain/)(${others.join('|')})/`, message: `${subarea}/ may import only ${[subarea, ...allowed].join(', ')} (the aggregates in dependency order).` }]
            : []),
        ];
        blocks.push({
          files: [`${area}/${subarea}/${'*/'.repeat(depth - 2)}*.ts`],
          rules: { 'no-restricted-imports': ['error', { patterns: [...patterns, ...banned] }] },
        });
      }
    }
  }
  return blocks;
}

/**
 * The console (a browser app) reaches the API only through the project's client: of the other
 * areas it may import `#client` alone, never the functions, the wiring or Node-side code.
 */
function consoleLayering() {
  const blocks = [];
  for (let depth = 1; depth <= 4; depth += 1) {
    blocks.push({
      files: [`console/src/${'*/'.repeat(depth - 1)}*.{ts,tsx}`],
      languageOptions: { globals: globals.browser },
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              { regex: `^(\\.\\./){${depth}}`, message: 'This climbs out of console/src/: the console imports the API client (#client) and its own files only.' },
              { regex: '^#(?!client$)', message: 'The console talks to the API only through the project\'s client (#client).' },
              { group: ['node:*', '@aws-sdk/*', 'zod'], message: 'Browser code: no Node modules, no AWS SDK, no server-side validation library.' },
            ],
          },
        ],
      },
    });
  }
  return blocks;
}

export default defineConfig(
  globalIgnores(['**/node_modules/', 'cdk.out/', '.data/', '.bench/', 'coverage/', 'client/dist/', 'client/src/generated/', 'console/dist/']),
  eslint.configs.recommended,
  tseslint.configs.recommended,
  {
    // A disable comment must name a rule that would otherwise fire.
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // `_name` marks a value left unused on purpose (a field rest-destructured away, a callback's slot).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // Where a pattern names control characters it means to (unsafe keys, terminal escapes).
      'no-control-regex': 'off',
    },
  },
  ...layering(),
  ...consoleLayering(),
  {
    // Time is injected (a task clock, a real-time clock), so tests can move it; issue 32. The
    // domain takes it from its caller; the wiring (functions/app-context, bin) holds the real one.
    files: ['functions/adapters/**/*.ts', 'functions/domain/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']", message: 'take the injected clock' },
        { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'take the injected clock' },
      ],
    },
  },
  {
    // Tests read untyped JSON (templates, API answers) field by field; `unknown` would need a cast per access.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The CommonJS files: configuration and the bundle runner spawned by bin/invoke.
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
