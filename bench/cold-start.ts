/**
 * Cold-start cost of each function: builds every handler under functions/handlers/ with the
 * bundling options of the CDK construct (esbuild, CJS, minified, AWS SDK and native packages
 * external, as on Lambda), then loads each built bundle in a fresh Node process and prints how
 * long the `require` took (median of several processes), the bundle's size and which AWS SDK
 * clients it loaded. Run: npm run bench:cold   (figures only; no pass/fail)
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { BUNDLE_ALIASES } from '#lib/bundle-extras';
import { AWS_SDK_EXTERNALS, BUNDLE_DEFINE, BUNDLE_TARGET, HANDLERS_DIR, NATIVE_EXTERNALS } from '#lib/constructs/api-function';

const ROOT = path.resolve(__dirname, '..');
/** Inside the repository, so the externals resolve from its node_modules as from Lambda's runtime. */
const OUT_DIR = path.join(ROOT, '.bench', 'cold');
const LIMIT_BYTES = 344 * 1024; // test/cdk/bundles.test.ts, BUNDLE_TARGET_BYTES
const RUNS = Number(process.env.COLD_RUNS ?? 5);
const RUNTIME_GLOBALS = path.join(ROOT, 'bin', 'lambda-streaming.cjs');

/** Loads one bundle and reports the time its `require` took and the SDK clients it pulled in. */
const PROBE = `
require(process.argv[2]).installRuntimeGlobals(); // the runtime's awslambda global (streaming handlers use it as they load)
const t0 = performance.now();
require(process.argv[1]);
const ms = performance.now() - t0;
const clients = [...new Set(Object.keys(require.cache).map((f) => (f.match(/@aws-sdk[\\\\/](client-[a-z0-9-]+)/) || [])[1]).filter(Boolean))].sort();
process.stdout.write(JSON.stringify({ ms, clients }));
`;

const ENV = {
  ...process.env,
  // Configuration as on Lambda; nothing is contacted at load time.
  TABLE_NAME: 'bench',
  AWS_REGION: 'eu-west-1',
  MEDIA_BUCKET: 'bench-media',
  PUBLIC_MEDIA_BASE_URL: 'https://media.example.com',
  PROVIDER: 'simulated',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

async function main(): Promise<void> {
  rmSync(OUT_DIR, { recursive: true, force: true });
  const handlers = readdirSync(HANDLERS_DIR)
    .filter((file) => file.endsWith('.ts'))
    .map((file) => file.slice(0, -3))
    .sort();
  console.log(`node ${process.version}, ${RUNS} fresh processes per bundle, median shown`);
  console.log(`${'function'.padEnd(18)} ${'size'.padStart(9)} ${'load'.padStart(9)}  AWS SDK clients loaded`);
  for (const handler of handlers) {
    const outdir = path.join(OUT_DIR, handler);
    mkdirSync(outdir, { recursive: true });
    const outfile = path.join(outdir, 'index.js');
    await build({
      entryPoints: [path.join(HANDLERS_DIR, `${handler}.ts`)],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: BUNDLE_TARGET,
      minify: true,
      keepNames: true,
      sourcemap: false,
      charset: 'utf8',
      logLevel: 'error',
      external: [...AWS_SDK_EXTERNALS, ...NATIVE_EXTERNALS],
      define: { ...BUNDLE_DEFINE },
      // As the stack bundles it: the MCP function leaves Ajv out.
      alias: { ...BUNDLE_ALIASES[handler] },
    });
    const size = statSync(outfile).size;
    const samples = Array.from({ length: RUNS }, () =>
      JSON.parse(execFileSync(process.execPath, ['-e', PROBE, outfile, RUNTIME_GLOBALS], { env: ENV, encoding: 'utf8' })) as {
        ms: number;
        clients: string[];
      },
    );
    const times = samples.map((sample) => sample.ms).sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)]!;
    console.log(
      `${handler.padEnd(18)} ${`${(size / 1024).toFixed(0)} KB`.padStart(9)} ${`${median.toFixed(0)} ms`.padStart(9)}  ${samples[0]!.clients.join(', ') || '-'}`,
    );
    if (size > LIMIT_BYTES) console.log(`WARNING: ${handler} bundle is ${(size / 1024).toFixed(0)} KB, above ${LIMIT_BYTES / 1024} KB`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
