/**
 * Cold-start cost of each function, measured against the generate function's: builds every
 * handler under functions/handlers/ with the CDK construct's bundling options (esbuild, CJS,
 * minified, AWS SDK and native packages external, as on Lambda), then loads each bundle in fresh
 * Node processes. Each round spawns one process for generate and one for the function, in
 * alternating order, so the machine's load hits both alike; the figure that counts is the ratio
 * of the medians (×generate), with ✓ at most 1.30 (issue 33: what users feel is load time).
 * Each bundle loads with exactly its own environment as the stack sets it (cdk.json's context,
 * synthesized without bundling; deploy-time values as placeholders: bin/invoke/template-
 * environment.ts) plus what Lambda's runtime adds, nothing of this shell's: a function that reads
 * a setting at load that its spec does not give it stops the bench, naming it.
 *
 *   npm run bench:cold                                     all functions, COLD_RUNS rounds (default 7)
 *   npm run bench:cold -- --only get-video,mcp             some functions
 *   npm run bench:cold -- --json out/bench-cold-after.json also write the figures
 *   npm run bench:cold -- --compare out/bench-cold-before.json   before and after side by side
 *   npm run bench:cold -- --why mcp                        the modules mcp bundles beyond generate's, largest first
 *
 * Figures only, no pass/fail on speed (bundle sizes are held by test/cdk/bundles.test.ts); a
 * bundle that does not load with its own environment stops it.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { App } from 'aws-cdk-lib';
import { build, type Metafile } from 'esbuild';
import { flattenedTemplate } from '#bin/invoke/nested-templates';
import { lambdaRuntimeEnvironment, templateEnvironments } from '#bin/invoke/template-environment';
import { buildApp } from '#lib/app';
import { aliasesOf } from '#lib/bundle-options';
import { readDeploySettings } from '#lib/deploy-settings';
import { specOf } from '#spec/registry';
import { AWS_SDK_EXTERNALS, BUNDLE_DEFINE, BUNDLE_TARGET, HANDLERS_DIR, NATIVE_EXTERNALS } from '#lib/constructs/api-function';

const ROOT = path.resolve(__dirname, '..');
/** Inside the repository, so the externals resolve from its node_modules as from Lambda's runtime. */
const OUT_DIR = path.join(ROOT, '.bench', 'cold');
const RUNS = Number(process.env.COLD_RUNS ?? 7);
/** The goal: no function loads more than this many times generate's load time. */
const MAX_RATIO = 1.3;
const REFERENCE = 'generate';
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

type Env = Readonly<Record<string, string>>;

/**
 * Each function's environment as the stack sets it (cdk.json's context, as `npm run synth`),
 * by handler: its template's variables with placeholders for deploy-time values, the Lambda
 * runtime's, and PATH. Nothing is contacted at load time.
 */
function stackEnvironments(): Record<string, Env> {
  const outdir = mkdtempSync(path.join(os.tmpdir(), 'vidgen-bench-cdk-'));
  try {
    const { context } = JSON.parse(readFileSync(path.join(ROOT, 'cdk.json'), 'utf8')) as { context?: Record<string, unknown> };
    const app = new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] }, outdir });
    const { stateless } = buildApp(app, readDeploySettings((key) => app.node.tryGetContext(key), {}));
    const environments = templateEnvironments(flattenedTemplate(stateless));
    return Object.fromEntries(
      Object.entries(environments).map(([handler, variables]) => [
        handler,
        {
          PATH: process.env.PATH ?? '',
          ...variables,
          ...lambdaRuntimeEnvironment(handler),
          // The SDK's Node-version notice would be noise on stderr.
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        },
      ]),
    );
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

export interface FunctionFigures {
  bytes: number;
  /** Median load time of the function, and of generate in the same rounds. */
  loadMs: number;
  generateMs: number;
  ratio: number;
  clients: string[];
}

export interface ColdFigures {
  node: string;
  runs: number;
  loadAverage: number[];
  functions: Record<string, FunctionFigures>;
  mcp: { bytes: number; generateBytes: number; sdkBytes: number };
}

interface Options {
  json?: string;
  compare?: string;
  why?: string;
  only?: string[];
}

function parseOptions(argv: string[]): Options {
  const options: Options = {};
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i]!;
    const value = argv[i + 1];
    if (!['--json', '--compare', '--why', '--only'].includes(flag) || value === undefined) {
      throw new Error(`Unknown or incomplete option ${flag}: use --json <file>, --compare <file>, --why <function>, --only <a,b>.`);
    }
    if (flag === '--only') options.only = value.split(',');
    else options[flag.slice(2) as 'json' | 'compare' | 'why'] = value;
    i += 1;
  }
  return options;
}

/** The bundle of one entry, built as the stack builds it; its metafile for --why. */
async function bundle(name: string, entry: string, aliases: Readonly<Record<string, string>> = {}, external: string[] = []): Promise<{ file: string; metafile: Metafile }> {
  const outdir = path.join(OUT_DIR, name);
  mkdirSync(outdir, { recursive: true });
  const file = path.join(outdir, 'index.js');
  const { metafile } = await build({
    entryPoints: [entry],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: BUNDLE_TARGET,
    minify: true,
    keepNames: true,
    sourcemap: false,
    charset: 'utf8',
    logLevel: 'error',
    metafile: true,
    external: [...AWS_SDK_EXTERNALS, ...NATIVE_EXTERNALS, ...external],
    define: { ...BUNDLE_DEFINE },
    alias: { ...aliases },
  });
  return { file, metafile };
}

/** A bundle that did not load: the message names it, its environment and the error. */
class LoadFailure extends Error {}

/** A bundle to load: its file, its function's name and environment. */
interface Loadable {
  handler: string;
  file: string;
  env: Env;
}

function load({ handler, file, env }: Loadable): { ms: number; clients: string[] } {
  try {
    return JSON.parse(execFileSync(process.execPath, ['-e', PROBE, file, RUNTIME_GLOBALS], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })) as {
      ms: number;
      clients: string[];
    };
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? error);
    // Node prints the throwing line of the (minified) bundle first, then "SomeError: message".
    const reason = stderr.split('\n').find((line) => /^[A-Za-z]*Error\b[^:]*: /.test(line)) ?? stderr.trim().split('\n').at(-1);
    throw new LoadFailure(`${handler} does not load with its own environment (as the stack sets it: ${Object.keys(env).sort().join(', ')}): ${reason}`, { cause: error });
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;

/** R rounds of (generate, function) in alternating order: both medians come from the same moments. */
function paired(fn: Loadable, generate: Loadable): Omit<FunctionFigures, 'bytes'> {
  const own: number[] = [];
  const reference: number[] = [];
  let clients: string[] = [];
  for (let round = 0; round < RUNS; round += 1) {
    const order = round % 2 === 0 ? [fn, generate] : [generate, fn];
    for (const one of order) {
      const sample = load(one);
      if (one === fn) {
        own.push(sample.ms);
        clients = sample.clients;
      } else reference.push(sample.ms);
    }
  }
  const loadMs = median(own);
  const generateMs = median(reference);
  return { loadMs, generateMs, ratio: loadMs / generateMs, clients };
}

/** The inputs `fn` bundles beyond generate's, largest first (their size in the output). */
function why(fn: string, metafiles: Map<string, Metafile>): void {
  const inputsOf = (name: string) => Object.values(metafiles.get(name)!.outputs)[0]!.inputs;
  const reference = new Set(Object.keys(inputsOf(REFERENCE)));
  const extra = Object.entries(inputsOf(fn))
    .filter(([input]) => !reference.has(input))
    .map(([input, { bytesInOutput }]) => [input, bytesInOutput] as const)
    .sort((a, b) => b[1] - a[1]);
  const total = extra.reduce((sum, [, bytes]) => sum + bytes, 0);
  console.log(`\n${fn} bundles ${extra.length} inputs that ${REFERENCE} does not (${kb(total)} in its output):`);
  for (const [input, bytes] of extra.slice(0, 40)) console.log(`${`${(bytes / 1024).toFixed(1)} KB`.padStart(10)}  ${input}`);
  const missing = Object.keys(inputsOf(REFERENCE)).filter((input) => !(input in inputsOf(fn))).length;
  console.log(`(and it leaves out ${missing} of ${REFERENCE}'s inputs)`);
}

function compare(before: ColdFigures, after: ColdFigures): void {
  console.log(`\nbefore: node ${before.node}, ${before.runs} rounds, load average ${before.loadAverage.map((l) => l.toFixed(1)).join(' ')}`);
  console.log(`after:  node ${after.node}, ${after.runs} rounds, load average ${after.loadAverage.map((l) => l.toFixed(1)).join(' ')}`);
  console.log(`${'function'.padEnd(20)} ${'size before'.padStart(11)} ${'after'.padStart(8)}   ${'load before'.padStart(11)} ${'after'.padStart(8)}   ${'×gen before'.padStart(11)} ${'after'.padStart(7)}`);
  const names = [...new Set([...Object.keys(before.functions), ...Object.keys(after.functions)])].sort();
  for (const name of names) {
    const b = before.functions[name];
    const a = after.functions[name];
    const cell = (figures: FunctionFigures | undefined, pick: (f: FunctionFigures) => string) => (figures ? pick(figures) : '-');
    console.log(
      `${name.padEnd(20)} ${cell(b, (f) => kb(f.bytes)).padStart(11)} ${cell(a, (f) => kb(f.bytes)).padStart(8)}   ` +
        `${cell(b, (f) => `${f.loadMs.toFixed(0)} ms`).padStart(11)} ${cell(a, (f) => `${f.loadMs.toFixed(0)} ms`).padStart(8)}   ` +
        `${cell(b, (f) => f.ratio.toFixed(2)).padStart(11)} ${cell(a, (f) => f.ratio.toFixed(2)).padStart(7)}`,
    );
  }
  console.log(`mcp: ${kb(before.mcp.bytes)} (generate ${kb(before.mcp.generateBytes)} + SDK ${kb(before.mcp.sdkBytes)}) -> ${kb(after.mcp.bytes)} (generate ${kb(after.mcp.generateBytes)} + SDK ${kb(after.mcp.sdkBytes)})`);
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  rmSync(OUT_DIR, { recursive: true, force: true });
  const all = readdirSync(HANDLERS_DIR)
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts'))
    .map((file) => file.slice(0, -3))
    .sort();
  const handlers = options.only ? all.filter((name) => options.only!.includes(name) || name === REFERENCE) : all;

  const environments = options.why ? {} : stackEnvironments();
  const files = new Map<string, string>();
  const metafiles = new Map<string, Metafile>();
  for (const handler of handlers) {
    // As the stack bundles it: the MCP function leaves Ajv out.
    const built = await bundle(handler, path.join(HANDLERS_DIR, `${handler}.ts`), aliasesOf(specOf(handler)));
    files.set(handler, built.file);
    metafiles.set(handler, built.metafile);
  }
  if (options.why) {
    if (!metafiles.has(options.why)) throw new Error(`No function ${options.why}.`);
    why(options.why, metafiles);
    return;
  }
  const sdk = await bundle('mcp-sdk', path.join(ROOT, 'bench', 'mcp-sdk-entry.ts'), aliasesOf(specOf('mcp')), ['zod', 'zod/*']);

  const figures: ColdFigures = {
    node: process.version,
    runs: RUNS,
    loadAverage: [],
    functions: {},
    mcp: { bytes: 0, generateBytes: 0, sdkBytes: statSync(sdk.file).size },
  };
  const loadAverage = (await import('node:os')).loadavg();
  const loadable = (handler: string): Loadable => {
    const env = environments[handler];
    if (!env) throw new Error(`The stack has no function ${handler}: no environment to load it with.`);
    return { handler, file: files.get(handler)!, env };
  };
  const generate = loadable(REFERENCE);
  console.log(`node ${process.version}, ${RUNS} rounds of (${REFERENCE}, function) in fresh processes, medians; load average ${loadAverage.map((l) => l.toFixed(1)).join(' ')}`);
  console.log(`${'function'.padEnd(20)} ${'size'.padStart(8)} ${'load'.padStart(8)} ${REFERENCE.padStart(9)} ${'×gen'.padStart(6)}    AWS SDK clients loaded`);
  for (const handler of handlers) {
    const bytes = statSync(files.get(handler)!).size;
    const measured =
      handler === REFERENCE
        ? (() => {
            const samples = Array.from({ length: RUNS }, () => load(generate));
            const ms = median(samples.map((s) => s.ms));
            return { loadMs: ms, generateMs: ms, ratio: 1, clients: samples[0]!.clients };
          })()
        : paired(loadable(handler), generate);
    figures.functions[handler] = { bytes, ...measured };
    const mark = measured.ratio <= MAX_RATIO ? '✓' : '✗';
    console.log(
      `${handler.padEnd(20)} ${kb(bytes).padStart(8)} ${`${measured.loadMs.toFixed(0)} ms`.padStart(8)} ${`${measured.generateMs.toFixed(0)} ms`.padStart(9)} ${measured.ratio.toFixed(2).padStart(6)} ${mark}  ${measured.clients.join(', ') || '-'}`,
    );
  }
  figures.loadAverage = [...loadAverage, ...(await import('node:os')).loadavg()];
  const over = Object.entries(figures.functions).filter(([, f]) => f.ratio > MAX_RATIO).map(([name]) => name);
  console.log(over.length === 0 ? `every function loads within ${MAX_RATIO}× ${REFERENCE}'s` : `above ${MAX_RATIO}× ${REFERENCE}'s: ${over.join(', ')}`);

  if (files.has('mcp')) {
    const mcp = figures.functions.mcp!.bytes;
    const generate = figures.functions[REFERENCE]!.bytes;
    figures.mcp = { ...figures.mcp, bytes: mcp, generateBytes: generate };
    const ok = mcp <= generate + figures.mcp.sdkBytes;
    console.log(`mcp ${kb(mcp)} ${ok ? '≤' : '>'} ${REFERENCE} ${kb(generate)} + MCP SDK ${kb(figures.mcp.sdkBytes)} ${ok ? '✓' : '✗'}`);
  }

  if (options.json) {
    mkdirSync(path.dirname(path.resolve(options.json)), { recursive: true });
    writeFileSync(options.json, `${JSON.stringify(figures, null, 2)}\n`);
    console.log(`written to ${options.json}`);
  }
  if (options.compare) compare(JSON.parse(readFileSync(options.compare, 'utf8')) as ColdFigures, figures);
}

main().catch((error: unknown) => {
  console.error(error instanceof LoadFailure ? error.message : error);
  process.exit(1);
});
