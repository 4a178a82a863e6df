/**
 * One jest run covers five projects: unit, process, integration, e2e and cdk (`--selectProjects unit`
 * runs one). The global setup of the last three starts DynamoDB Local and s3rver once on free
 * loopback ports; each test file creates its own table, so files run in parallel without
 * sharing state. Unit tests need neither.
 */
// The tests run on Node 24 (.ci/run); on an older Node, the AWS SDK's notice that its later
// versions need Node 22 would be printed by every process a test spawns: noise there, which the
// npm scripts (what people run) no longer hide.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

// babel-jest rather than @swc/jest: swc's per-platform binaries are missing from the registry
// these machines use, which leaves package-lock.json unusable by `npm ci`.
const babel = [
  'babel-jest',
  {
    presets: [
      ['@babel/preset-env', { targets: { node: '24' }, modules: 'commonjs' }],
      ['@babel/preset-typescript', { allowDeclareFields: true }],
    ],
    babelrc: false,
    configFile: false,
  },
];

const common = {
  testEnvironment: 'node',
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.(t|j)s$': babel },
  // middy ships ES modules only; let babel turn them into CommonJS for jest.
  transformIgnorePatterns: ['/node_modules/(?!(@middy)/)'],
  // The Lambda runtime's `awslambda` global, for the streaming handlers tests load.
  setupFiles: ['<rootDir>/test/support/lambda-runtime-globals.ts'],
};

/** DynamoDB Local and s3rver, started once for every selected project that needs them. */
const withLocalServers = {
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
};

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    // Pure rules and use cases on in-memory stores: no servers, milliseconds per test.
    // Log lines are kept, not printed: a test takes the warnings it causes (test/support/log-capture.ts).
    { ...common, displayName: 'unit', roots: ['<rootDir>/test/unit'], setupFilesAfterEnv: ['<rootDir>/test/support/unit-logs.ts'] },
    // Spawns processes, renders media or builds whole documents: seconds per test, no servers.
    // Kept out of "unit" so `npm run test:unit` stays fast (`npm run test:process` runs these).
    { ...common, displayName: 'process', roots: ['<rootDir>/test/process'], setupFilesAfterEnv: ['<rootDir>/test/support/unit-logs.ts'] },
    { ...common, ...withLocalServers, displayName: 'integration', roots: ['<rootDir>/test/integration'] },
    { ...common, ...withLocalServers, displayName: 'e2e', roots: ['<rootDir>/test/e2e'] },
    // The bundle test runs the built handlers against the local servers.
    { ...common, ...withLocalServers, displayName: 'cdk', roots: ['<rootDir>/test/cdk'] },
  ],
  // Jest 29 reads testTimeout from the top level only (a project's own is ignored).
  testTimeout: 30000,
  maxWorkers: 2,
};
