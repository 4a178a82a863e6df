/**
 * Cold-start cost of each function, measured against the generate function's: builds every
 * handler under functions/handlers/ with the CDK construct's bundling options (esbuild, CJS,
 * minified, AWS SDK and native packages external, as on Lambda), then loads each bundle in fresh
 * Node processes. Each round spawns one process for generate and one for the function, in
 * alternating order, so the machine's load hits both alike; the figure that counts is the ratio
 * of the medians (×generate), with ✓ at most 1.30 (issue 33: what users feel is load time).
 *
 *   npm run bench:cold                                     all functions, COLD_RUNS rounds (default 7)
 *   npm run bench:cold -- --only get-video,mcp             some functions
 *   npm run bench:cold -- --json out/bench-cold-after.json also write the figures
 *   npm run bench:cold -- --compare out/bench-cold-before.json   before and after side by side
 *   npm run bench:cold -- --why mcp                        the modules mcp bundles beyond generate's, largest first
 *
 * Figures only; no pass/fail (bundle sizes are held by test/cdk/bundles.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build, type Metafile } from 'esbuild';
import { aliasesOf } from '#lib/bundle-options';
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

function load(file: string): { ms: number; clients: string[] } {
  return JSON.parse(execFileSync(process.execPath, ['-e', PROBE, file, RUNTIME_GLOBALS], { env: ENV, encoding: 'utf8' })) as { ms: number; clients: string[] };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;

/** R rounds of (generate, function) in alternating order: both medians come from the same moments. */
function paired(file: string, generateFile: string): Omit<FunctionFigures, 'bytes'> {
  const own: number[] = [];
  const reference: number[] = [];
  let clients: string[] = [];
  for (let round = 0; round < RUNS; round += 1) {
    const order = round % 2 === 0 ? [file, generateFile] : [generateFile, file];
    for (const one of order) {
      const sample = load(one);
      if (one === file) {
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
  const generateFile = files.get(REFERENCE)!;
  console.log(`node ${process.version}, ${RUNS} rounds of (${REFERENCE}, function) in fresh processes, medians; load average ${loadAverage.map((l) => l.toFixed(1)).join(' ')}`);
  console.log(`${'function'.padEnd(20)} ${'size'.padStart(8)} ${'load'.padStart(8)} ${REFERENCE.padStart(9)} ${'×gen'.padStart(6)}    AWS SDK clients loaded`);
  for (const handler of handlers) {
    const bytes = statSync(files.get(handler)!).size;
    const measured =
      handler === REFERENCE
        ? (() => {
            const samples = Array.from({ length: RUNS }, () => load(generateFile));
            const ms = median(samples.map((s) => s.ms));
            return { loadMs: ms, generateMs: ms, ratio: 1, clients: samples[0]!.clients };
          })()
        : paired(files.get(handler)!, generateFile);
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
  console.error(error);
  process.exit(1);
});
