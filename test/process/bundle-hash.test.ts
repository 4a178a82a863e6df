import { readFileSync } from 'node:fs';
import path from 'node:path';
import { bundleHashes, withFiles } from '#lib/bundle-hash';
import { HANDLERS_DIR } from '#lib/constructs/api-function';
import { loadSpecs } from '#spec/registry';
import { REPO_ROOT } from '#test-support/run-script';

/**
 * The asset hashes that let a synth skip unchanged bundles (lib/bundle-hash.ts): one edited
 * input changes exactly the hashes of the functions that bundle it, and nothing else.
 */
// A handful of functions keeps each esbuild pass short: two billing ones (Stripe's gateway),
// two that do not bill, and the two reference ones (the document copied beside them).
const specs = loadSpecs().filter((spec) => ['create-checkout', 'stripe-webhook', 'get-credits', 'generate', 'get-openapi', 'get-docs'].includes(spec.name));
const build = { options: { target: 'node24', minify: true, externalModules: ['@aws-sdk/*', '@smithy/*'], define: {} }, entryOf: (spec: { name: string }) => path.join(HANDLERS_DIR, `${spec.name}.ts`) };
const editing = (relative: string) => (file: string) => {
  const content = readFileSync(file);
  return path.relative(REPO_ROOT, file) === relative ? Buffer.concat([content, Buffer.from('\n// edited\n')]) : content;
};
const changed = (before: Map<string, string>, after: Map<string, string>) => [...before].filter(([name, hash]) => after.get(name) !== hash).map(([name]) => name).sort();

describe('bundle hashes', () => {
  let base: Map<string, string>;
  beforeAll(() => {
    base = bundleHashes(specs, build);
  }, 60_000);

  it('exist for every function, the same when nothing changed', () => {
    expect([...base.keys()].sort()).toEqual(specs.map((spec) => spec.name).sort());
    expect(bundleHashes(specs, build)).toEqual(base);
  });

  it("change with a source file for exactly the functions that bundle it (Stripe's gateway: the billing functions)", () => {
    const names = changed(base, bundleHashes(specs, build, editing('functions/adapters/stripe/stripe-gateway.ts')));
    expect(names).toEqual(['create-checkout', 'stripe-webhook']);
  });

  it('change with a file copied beside the bundle, the lock file or the build options', () => {
    expect(changed(base, bundleHashes(specs, build, editing('docs/openapi.json')))).toEqual(['get-docs', 'get-openapi']);
    expect(changed(base, bundleHashes(specs, build, editing('package-lock.json')))).toHaveLength(specs.length);
    expect(changed(base, bundleHashes(specs, { ...build, options: { ...build.options, minify: false } }))).toHaveLength(specs.length);
  });

  it('change with a file the deploy ships beside a bundle (a model map from context), by its content and its name', () => {
    const hash = base.get('generate')!;
    const map = { source: '/cdk.out/vidgen-settings/x.json', name: 'REPLICATE_MODELS.json' };
    const reading = (text: string) => () => text;
    expect(withFiles(hash, [])).toBe(hash);
    const shipped = withFiles(hash, [map], reading('{"a":1}'));
    expect(shipped).not.toBe(hash);
    expect(withFiles(hash, [map], reading('{"a":1}'))).toBe(shipped);
    expect(withFiles(hash, [map], reading('{"a":2}'))).not.toBe(shipped);
    expect(withFiles(hash, [{ ...map, name: 'FAL_MODELS.json' }], reading('{"a":1}'))).not.toBe(shipped);
  });
});
