/**
 * `npm run bench:console`: the console's download sizes from Vite's manifest, gzip: the initial
 * JS and CSS (goal: initial JS at most 150 KB) and each page's own chunks. Figures only; no
 * pass/fail. (The gallery's render with a long history is not timed here yet.)
 */
import { ensureConsoleBuilt } from '#lib/console-build';
import { consoleSizes } from './console-sizes';
import { runBench } from './load';

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

async function main(): Promise<void> {
  const build = await ensureConsoleBuilt();
  const sizes = consoleSizes(build.dir);
  console.log(`== console build ${build.dir} (${build.built ? 'built now' : 'cached'}) ==`);
  console.log(`initial JS (gzip)   ${kb(sizes.initialJsGzip).padStart(9)}   goal <= 150 KB`);
  console.log(`initial CSS (gzip)  ${kb(sizes.initialCssGzip).padStart(9)}`);
  console.log('route chunks (gzip, beyond the initial ones):');
  for (const route of sizes.routes) console.log(`  ${route.route.padEnd(14)} ${kb(route.gzip).padStart(9)}  ${route.files.join(', ')}`);
}

runBench(main);
