import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * The domain grouped by aggregate (issue 32): each folder of functions/domain imports only the
 * folders below it, and no file reaches back to itself through its imports (eslint-plugin-import
 * is not installed: this test parses the imports itself).
 */
const DOMAIN = path.resolve(__dirname, '..', '..', 'functions', 'domain');

/** What each folder may import besides itself, in dependency order. */
export const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  shared: [],
  catalogue: ['shared'],
  accounts: ['shared', 'catalogue'],
  billing: ['shared', 'catalogue', 'accounts'],
  providers: ['shared', 'catalogue'],
  tasks: ['shared', 'catalogue', 'accounts', 'providers'],
  webhooks: ['shared', 'catalogue', 'accounts', 'tasks'],
  uploads: ['shared', 'catalogue'],
  usage: ['shared', 'catalogue', 'accounts', 'tasks'],
};

interface Edge {
  to: string;
  typeOnly: boolean;
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? files(full) : name.endsWith('.ts') ? [full] : [];
  });
}

/** The domain's own files, each in an aggregate's folder. */
const modules = files(DOMAIN).filter((file) => path.dirname(file) !== DOMAIN);
const folderOf = (file: string) => path.relative(DOMAIN, file).split(path.sep)[0]!;

function importsOf(file: string): Edge[] {
  const text = readFileSync(file, 'utf8');
  const edges: Edge[] = [];
  for (const match of text.matchAll(/^(import|export)(\s+type)?[^'";]*?from\s+'([^']+)';/gms)) {
    const specifier = match[3]!;
    const target = specifier.startsWith('#domain/')
      ? path.join(DOMAIN, `${specifier.slice('#domain/'.length)}.ts`)
      : specifier.startsWith('.')
        ? `${path.resolve(path.dirname(file), specifier)}.ts`
        : undefined;
    if (target) edges.push({ to: target, typeOnly: Boolean(match[2]) });
  }
  return edges;
}

const graph = new Map(modules.map((file) => [file, importsOf(file)]));

describe('functions/domain', () => {
  it('has no file at its top level: each lives in its aggregate\'s folder (the old paths\' shims are gone)', () => {
    expect(files(DOMAIN).filter((candidate) => path.dirname(candidate) === DOMAIN)).toEqual([]);
  });

  it('keeps every file in a known folder, importing only the folders below it (never a shim)', () => {
    const wrong: string[] = [];
    for (const [file, edges] of graph) {
      const folder = folderOf(file);
      const allowed = ALLOWED[folder];
      if (!allowed) {
        wrong.push(`${path.relative(DOMAIN, file)} is in no known folder`);
        continue;
      }
      for (const { to } of edges) {
        const target = path.relative(DOMAIN, to);
        if (!target.includes(path.sep)) wrong.push(`${path.relative(DOMAIN, file)} imports the shim ${target}`);
        else if (folderOf(to) !== folder && !allowed.includes(folderOf(to))) wrong.push(`${path.relative(DOMAIN, file)} -> ${target}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('has no file that imports itself back (value imports; a port may name the types of the module that uses it)', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, trail: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...trail.slice(trail.indexOf(file)), file].map((step) => path.relative(DOMAIN, step)).join(' -> '));
        return;
      }
      state.set(file, 'open');
      for (const edge of graph.get(file) ?? []) if (!edge.typeOnly) visit(edge.to, [...trail, file]);
      state.set(file, 'done');
    };
    for (const file of modules) visit(file, []);
    expect(cycles).toEqual([]);
  });

  it('has no type-import cycle either, except through a ports file', () => {
    const cycles: string[] = [];
    const isPorts = (file: string) => path.basename(file) === 'ports.ts';
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, trail: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        const cycle = [...trail.slice(trail.indexOf(file)), file];
        if (!cycle.some(isPorts)) cycles.push(cycle.map((step) => path.relative(DOMAIN, step)).join(' -> '));
        return;
      }
      state.set(file, 'open');
      for (const edge of graph.get(file) ?? []) visit(edge.to, [...trail, file]);
      state.set(file, 'done');
    };
    for (const file of modules) visit(file, []);
    expect(cycles).toEqual([]);
  });
});
