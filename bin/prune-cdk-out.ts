import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

/**
 * Deletes the assets in a cloud assembly (cdk.out) that no stack's asset manifest names any more:
 * bundles are kept by their hash (lib/bundle-hash.ts), so each changed function leaves its old
 * bundle behind, and a synth of another stage leaves that stage's. `npm run synth` runs it after
 * `cdk synth`. Prints what it freed.
 */
export function pruneCdkOut(cdkOut: string): { removed: string[] } {
  if (!existsSync(cdkOut)) return { removed: [] };
  const referenced = new Set<string>();
  for (const file of readdirSync(cdkOut).filter((name) => name.endsWith('.assets.json'))) {
    const manifest = JSON.parse(readFileSync(path.join(cdkOut, file), 'utf8')) as {
      files?: Record<string, { source?: { path?: string } }>;
      dockerImages?: Record<string, { source?: { directory?: string } }>;
    };
    for (const asset of Object.values(manifest.files ?? {})) if (asset.source?.path) referenced.add(asset.source.path);
    for (const image of Object.values(manifest.dockerImages ?? {})) if (image.source?.directory) referenced.add(image.source.directory);
  }
  const removed = readdirSync(cdkOut).filter((name) => name.startsWith('asset.') && !referenced.has(name));
  for (const name of removed) rmSync(path.join(cdkOut, name), { recursive: true, force: true });
  return { removed };
}

if (require.main === module) {
  const cdkOut = path.resolve(process.argv[2] ?? 'cdk.out');
  const { removed } = pruneCdkOut(cdkOut);
  console.log(`prune-cdk-out: ${removed.length} unreferenced asset(s) removed from ${path.relative(process.cwd(), cdkOut) || '.'}`);
}
