import { readFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { REPO_ROOT } from '#test-support/run-script';

/**
 * The parts of functions/app-context/ each handler reaches (`lifecycle` in lifecycle.ts is
 * "lifecycle#lifecycle"): the named imports from #app-context/* of every file in the handler's
 * bundle, as esbuild follows it (packages left out), outside app-context itself. Calling those
 * builds what the handler builds on its first request.
 */
const APP_CONTEXT = path.join(REPO_ROOT, 'functions', 'app-context') + path.sep;
const IMPORT = /import\s+(type\s+)?(\{[^}]*\}|[\w$]+|\*\s+as\s+[\w$]+)\s+from\s+'#app-context(?:\/([\w-]+))?'/g;

export async function appContextParts(handlers: readonly string[]): Promise<Record<string, string[]>> {
  const entries = Object.fromEntries(handlers.map((handler) => [handler, `functions/handlers/${handler}.ts`]));
  const { metafile } = await build({
    absWorkingDir: REPO_ROOT,
    entryPoints: entries,
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'cjs',
    packages: 'external',
    outdir: 'out',
    logLevel: 'silent',
  });
  const parts: Record<string, string[]> = {};
  for (const output of Object.values(metafile.outputs)) {
    if (!output.entryPoint) continue;
    const handler = path.basename(output.entryPoint, '.ts');
    const found = new Set<string>();
    for (const input of Object.keys(output.inputs)) {
      const file = path.resolve(REPO_ROOT, input);
      if (file.startsWith(APP_CONTEXT) || !file.endsWith('.ts')) continue;
      for (const part of importedParts(readFileSync(file, 'utf8'), input)) found.add(part);
    }
    parts[handler] = [...found].sort();
  }
  return parts;
}

function importedParts(source: string, file: string): string[] {
  const parts: string[] = [];
  for (const [, typeOnly, clause, module = 'index'] of source.matchAll(IMPORT)) {
    if (typeOnly) continue;
    if (!clause!.startsWith('{')) throw new Error(`${file}: only named imports from #app-context are understood here; got "${clause}".`);
    for (const name of clause!.slice(1, -1).split(',')) {
      const trimmed = name.trim();
      if (trimmed && !trimmed.startsWith('type ')) parts.push(`${module}#${trimmed.split(/\s+as\s+/)[0]}`);
    }
  }
  return parts;
}
