import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadSpecs } from '#spec/registry';
import { runScript } from '#test-support/run-script';
import { WIRING_LINE, type WiringCheck } from './support/build-wiring';
import { appContextParts } from './support/handler-parts';
import { synthesize } from './support/cdk-app';
import { lambdaRuntimeEnvironment, templateEnvironments } from '#bin/invoke/template-environment';

/**
 * Every function, cold-started with exactly its template environment on Lambda
 * (AWS_LAMBDA_FUNCTION_NAME set), loads its handler and builds the app-context parts it uses
 * (the lifecycle, the webhook parts, billing, the stores...) without throwing. Nothing runs a
 * request: building a part makes no network call. A variable the part reads eagerly but the
 * stack does not give the function fails here, not on the deployed function's first request.
 */
const VARIANTS: Readonly<Record<string, Record<string, unknown>>> = {
  // cdk.json as it is: Replicate.
  default: {},
  'simulated provider': { provider: 'simulated' },
  // A second provider with routes across both, and a billing catalogue with its return URL.
  'replicate and fal, routed; billing catalogue': {
    falSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:fal-api-key-AbCdEf',
    providerRoutes: JSON.stringify({ 'vid-1-5-pro': ['replicate', 'fal'] }),
    billingPacks: [{ pack_id: 'starter', price_id: 'price_1', credits: 500, amount: 500, currency: 'usd' }],
    billingPlan: { price_id: 'price_2', amount: 2000, currency: 'usd', interval: 'month' },
    billingReturnUrl: 'https://console.example.com/billing',
  },
};

const SPECS = loadSpecs();
const HANDLERS = SPECS.map((spec) => spec.name);
let checks: WiringCheck[];
let parts: Record<string, string[]>;

beforeAll(async () => {
  parts = await appContextParts(HANDLERS);
  checks = Object.entries(VARIANTS).flatMap(([label, context]) => {
    const environments = templateEnvironments(synthesize({ context }).statelessTemplate);
    return Object.entries(environments).map(([handler, environment]) => ({
      label,
      handler,
      environment: {
        ...environment,
        ...lambdaRuntimeEnvironment(handler),
        // A compile-time constant of every bundle (lib/constructs/api-function.ts, BUNDLE_DEFINE).
        VIDGEN_BUNDLE: 'lambda',
        // The SDK's Node-version notice: noise on these Node 20 machines (Lambda runs 24).
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      },
      parts: parts[handler] ?? [],
    }));
  });
}, 180_000);

describe('each function on Lambda, with its template environment', () => {
  it('reaches the app-context parts its needs say it uses (what the checks build)', () => {
    expect(Object.keys(parts).sort()).toEqual([...HANDLERS].sort());
    for (const { name: handler, needs } of SPECS) {
      // Every function that calls the provider builds the task lifecycle; every one with a table action reaches the stores.
      if (needs.providers) expect([handler, parts[handler]]).toEqual([handler, expect.arrayContaining(['lifecycle#lifecycle'])]);
      if (needs.table?.actions.length) expect([handler, parts[handler]!.length > 0]).toEqual([handler, true]);
    }
    expect(new Set(checks.map((one) => one.handler))).toEqual(new Set(HANDLERS));
  });

  it('loads its handler and builds every part on first use without throwing', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'vidgen-wiring-'));
    try {
      const file = path.join(dir, 'checks.json');
      writeFileSync(file, JSON.stringify(checks));
      const result = await runScript('test/cdk/support/build-wiring.ts', [file], {});
      const lines = result.stdout.split('\n').filter((line) => line.startsWith(WIRING_LINE));
      const outcomes = lines.map((line) => JSON.parse(line.slice(WIRING_LINE.length)) as { label: string; handler: string; error?: string });
      expect([result.code, outcomes.length, result.code === 0 ? '' : result.stderr]).toEqual([0, checks.length, '']);
      expect(outcomes.filter((outcome) => outcome.error !== undefined)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
