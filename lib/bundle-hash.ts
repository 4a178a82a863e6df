import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildSync, version as esbuildVersion } from 'esbuild';
import type { FunctionSpec } from '#spec/function-spec';
import { aliasesOf, extraFilesOf, type ExtraFile } from './bundle-options';

/**
 * Each function's asset hash, computed before bundling (NodejsFunction's `assetHash`, CDK's
 * AssetHashType.CUSTOM): CDK then skips esbuild for a function whose cdk.out/asset.<hash>
 * already exists, so a synth rebuilds only the bundles whose inputs changed (issue 33). The hash
 * covers everything that decides a bundle: every source file esbuild reads for it (one
 * in-process pass with a metafile over all functions, no output written), the build options,
 * esbuild's version, package-lock.json and the files copied beside the bundle. A hash that
 * missed an input would deploy a stale bundle: `cdk deploy --force`, or deleting cdk.out, is
 * the way out (docs/operations.md).
 */
const REPO_ROOT = path.resolve(__dirname, '..');

export interface BundleBuild {
  /** What the stack passes esbuild besides the entry and the aliases (externals, define, target, ...). */
  options: Readonly<Record<string, unknown>>;
  entryOf: (spec: FunctionSpec) => string;
}

/** The hash of each function's bundle, by name; `read` reads a file's bytes (a test substitutes one). */
export function bundleHashes(
  specs: readonly FunctionSpec[],
  buildOf: BundleBuild,
  read: (file: string) => Buffer | string = (file) => readFileSync(file),
): Map<string, string> {
  const external = (buildOf.options.externalModules as string[] | undefined) ?? [];
  const entryPoints = Object.fromEntries(specs.map((spec) => [spec.name, buildOf.entryOf(spec)]));
  const { metafile } = buildSync({
    absWorkingDir: REPO_ROOT,
    entryPoints,
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'cjs',
    outdir: 'out',
    external,
    define: buildOf.options.define as Record<string, string>,
    // The union of every function's aliases: a left-out package's stand-in is one more input, not one less.
    alias: Object.assign({}, ...specs.map((spec) => aliasesOf(spec))) as Record<string, string>,
    logLevel: 'silent',
  });
  const lock = read(path.join(REPO_ROOT, 'package-lock.json'));
  const hashes = new Map<string, string>();
  for (const output of Object.values(metafile.outputs)) {
    if (!output.entryPoint) continue;
    const name = path.basename(output.entryPoint).replace(/\.ts$/, '');
    const spec = specs.find((candidate) => candidate.name === name);
    if (!spec) continue;
    const hash = createHash('sha256');
    hash.update(JSON.stringify({ esbuild: esbuildVersion, options: buildOf.options, aliases: aliasesOf(spec) }));
    hash.update(lock);
    for (const input of Object.keys(output.inputs).sort()) {
      hash.update(`\0${input}\0`);
      hash.update(read(path.resolve(REPO_ROOT, input)));
    }
    for (const file of extraFilesOf(spec)) {
      hash.update(`\0${file.name}\0`);
      hash.update(read(file.source));
    }
    hashes.set(name, hash.digest('hex'));
  }
  return hashes;
}

/**
 * A function's hash with the files the deploy adds beside its bundle (the model maps, from
 * context: not the spec's, so not in `bundleHashes`): a new map rebuilds the functions that carry it.
 */
export function withFiles(hash: string, files: readonly ExtraFile[], read: (file: string) => Buffer | string = (file) => readFileSync(file)): string {
  if (files.length === 0) return hash;
  const combined = createHash('sha256').update(hash);
  for (const file of files) {
    combined.update(`\0${file.name}\0`);
    combined.update(read(file.source));
  }
  return combined.digest('hex');
}
