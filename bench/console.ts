/**
 * `npm run bench:console`: the console's download sizes and, in Chromium, the time to the first
 * rendered gallery of 200 tasks against 20 (the goals: initial JS at most 150 KB gzip; the
 * 200-task gallery within 1.5 times the 20-task one). Figures only; no pass/fail.
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
