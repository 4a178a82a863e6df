import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { allSampleNames, SAMPLES_SOURCE_DIR } from '#providers/simulated/sample-outputs';
import type { FunctionSpec } from '#spec/function-spec';
import type { BundledSetting } from './settings';

/**
 * What a function's spec says about its bundle, as the stack (lib/constructs/api-function.ts)
 * and bench:cold build it: the packages it leaves out, and the files it reads at run time
 * (esbuild cannot see them: they are read with fs, not imported), copied next to index.js.
 */
const REPO_ROOT = path.resolve(__dirname, '..');

/** Stands in for a left-out package: throws if it is ever called (functions/mcp/not-bundled.ts). */
export const LEFT_OUT_MODULE = path.join(REPO_ROOT, 'functions', 'mcp', 'not-bundled.ts');

/** A file copied next to a bundle: its absolute path, and its name there. */
export interface ExtraFile {
  source: string;
  name: string;
}

/** esbuild aliases: each left-out package to the stand-in. */
export const aliasesOf = (spec: FunctionSpec): Record<string, string> =>
  Object.fromEntries((spec.bundle?.leaveOut ?? []).map((name) => [name, LEFT_OUT_MODULE]));

/**
 * The simulated provider's sample outputs (1.2 MB), for every function that calls a provider:
 * on AWS test-mode tasks run on the simulated provider, which hands these out instead of
 * rendering (functions/providers/simulated/sample-outputs.ts).
 */
export const sampleOutputFiles = (): ExtraFile[] => allSampleNames().map((name) => ({ source: path.join(SAMPLES_SOURCE_DIR, name), name }));

/** A spec's `bundle.files` (a path from the repository's root, or a module specifier), then the samples if it calls a provider. */
export function extraFilesOf(spec: FunctionSpec): ExtraFile[] {
  const declared = (spec.bundle?.files ?? []).map(({ source, name }) => {
    const fromRoot = path.resolve(REPO_ROOT, source);
    return { source: existsSync(fromRoot) ? fromRoot : require.resolve(source), name };
  });
  return [...declared, ...(spec.needs.providers ? sampleOutputFiles() : [])];
}

/**
 * Settings the deploy ships beside a bundle (a model map: lib/function-environment.ts,
 * providerBundledSettings), written into the cloud assembly as vidgen-settings/<sha256>.json, a
 * name per content, so the bundling command copies a file that no other synth rewrites; the
 * asset hash covers it (lib/bundle-hash.ts, `withFiles`).
 */
export function writeBundledSettings(outdir: string, files: readonly BundledSetting[]): ExtraFile[] {
  if (files.length === 0) return [];
  const dir = path.join(outdir, 'vidgen-settings');
  mkdirSync(dir, { recursive: true });
  return files.map(({ name, text }) => {
    const source = path.join(dir, `${createHash('sha256').update(text).digest('hex')}.json`);
    if (!existsSync(source)) writeFileSync(source, text);
    return { source, name };
  });
}
