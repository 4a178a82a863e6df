/**
 * One jest run covers unit, integration and end-to-end tests. The global setup starts
 * DynamoDB Local and s3rver once on free loopback ports; each test file creates its own
 * table, so files run in parallel without sharing state.
 */
// Node 20 is what these machines have; the SDK's notice about Node 22 is noise in test output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

// babel-jest rather than @swc/jest: swc's per-platform binaries are missing from the registry
// these machines use, which leaves package-lock.json unusable by `npm ci`.
const babel = [
  'babel-jest',
  {
    presets: [
      ['@babel/preset-env', { targets: { node: '20' }, modules: 'commonjs' }],
      ['@babel/preset-typescript', { allowDeclareFields: true }],
    ],
    babelrc: false,
    configFile: false,
  },
];

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.(t|j)s$': babel },
  // middy ships ES modules only; let babel turn them into CommonJS for jest.
  transformIgnorePatterns: ['/node_modules/(?!(@middy)/)'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 30000,
  maxWorkers: 2,
};
