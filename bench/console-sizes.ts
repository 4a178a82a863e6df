import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

/**
 * What the browser downloads of a console build, from Vite's manifest: the initial JavaScript
 * (the entry and every chunk it imports statically: needed before the first page shows) and each
 * page's own chunks (loaded when the page is first opened), gzip-compressed as CloudFront serves them.
 */
interface ManifestChunk {
  file: string;
  name?: string;
  src?: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}

export interface ConsoleSizes {
  initialJsGzip: number;
  initialCssGzip: number;
  /** A page's chunk and the shared chunks it needs beyond the initial ones, gzip bytes. */
  routes: Array<{ route: string; gzip: number; files: string[] }>;
}

export function consoleSizes(dir: string): ConsoleSizes {
  const manifest = JSON.parse(readFileSync(path.join(dir, '.vite', 'manifest.json'), 'utf8')) as Record<string, ManifestChunk>;
  const gzip = (file: string) => gzipSync(readFileSync(path.join(dir, file)), { level: 9 }).length;
  const closure = (key: string, seen = new Set<string>()): Set<string> => {
    if (seen.has(key)) return seen;
    seen.add(key);
    for (const imported of manifest[key]?.imports ?? []) closure(imported, seen);
    return seen;
  };
  const entry = Object.keys(manifest).find((key) => manifest[key]!.isEntry)!;
  const initial = closure(entry);
  const files = (keys: Iterable<string>) => [...keys].map((key) => manifest[key]!.file);
  const routes = Object.keys(manifest)
    .filter((key) => manifest[key]!.isDynamicEntry)
    .map((key) => {
      const own = [...closure(key)].filter((needed) => !initial.has(needed));
      return { route: manifest[key]!.name ?? key, files: files(own), gzip: files(own).reduce((sum, file) => sum + gzip(file), 0) };
    })
    .sort((a, b) => a.route.localeCompare(b.route));
  const css = [...initial].flatMap((key) => manifest[key]!.css ?? []);
  return {
    initialJsGzip: files(initial).reduce((sum, file) => sum + gzip(file), 0),
    initialCssGzip: css.reduce((sum, file) => sum + gzip(file), 0),
    routes,
  };
}
