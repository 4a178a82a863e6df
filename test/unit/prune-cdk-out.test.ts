import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pruneCdkOut } from '#bin/prune-cdk-out';

describe('prune-cdk-out', () => {
  it('removes the assets no asset manifest names, and keeps the named ones and everything else', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'prune-'));
    try {
      for (const name of ['asset.kept', 'asset.old', 'asset.nested']) mkdirSync(path.join(dir, name));
      writeFileSync(path.join(dir, 'asset.zip.zip'), '');
      writeFileSync(path.join(dir, 'Stack.template.json'), '{}');
      writeFileSync(path.join(dir, 'Stack.assets.json'), JSON.stringify({ files: { a: { source: { path: 'asset.kept' } }, b: { source: { path: 'asset.zip.zip' } } } }));
      writeFileSync(path.join(dir, 'Other.assets.json'), JSON.stringify({ files: { c: { source: { path: 'asset.nested' } } } }));
      expect(pruneCdkOut(dir).removed).toEqual(['asset.old']);
      expect(['asset.kept', 'asset.nested', 'asset.zip.zip', 'Stack.template.json'].every((name) => existsSync(path.join(dir, name)))).toBe(true);
      expect(existsSync(path.join(dir, 'asset.old'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
