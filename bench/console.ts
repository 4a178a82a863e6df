/**
 * `npm run bench:console`: the console's download sizes from Vite's manifest, gzip: the initial
 * JS and CSS (goal: initial JS at most 150 KB) and each page's own chunks; then, in Chromium
 * against the local stack, the time to the first rendered gallery of 200 tasks against a 20-task
 * one (goal: within 1.5x). Figures only; no pass/fail.
 */
import { ensureConsoleBuilt } from '#lib/console-build';
import { galleryTimings } from './console-gallery';
import { consoleSizes } from './console-sizes';
import { ms, percentile, runBench, startBenchStack } from './load';

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const LOADS = 5;

async function main(): Promise<void> {
  const build = await ensureConsoleBuilt();
  const sizes = consoleSizes(build.dir);
  console.log(`== console build ${build.dir} (${build.built ? 'built now' : 'cached'}) ==`);
  console.log(`initial JS (gzip)   ${kb(sizes.initialJsGzip).padStart(9)}   goal <= 150 KB`);
  console.log(`initial CSS (gzip)  ${kb(sizes.initialCssGzip).padStart(9)}`);
  console.log('route chunks (gzip, beyond the initial ones):');
  for (const route of sizes.routes) console.log(`  ${route.route.padEnd(14)} ${kb(route.gzip).padStart(9)}  ${route.files.join(', ')}`);

  const stack = await startBenchStack('bench-console');
  try {
    const [small, large] = await galleryTimings(stack, [20, 200], LOADS);
    console.log(`== gallery first render in Chromium (navigation start to the first page of cards, p50 of ${LOADS} loads) ==`);
    for (const timing of [small!, large!]) {
      console.log(`  ${String(timing.tasks).padStart(3)} tasks (${timing.cards} cards): p50 ${ms(percentile(timing.loads, 50))}   loads ${timing.loads.map((t) => t.toFixed(0)).join(', ')} ms`);
    }
    const ratio = percentile(large!.loads, 50) / percentile(small!.loads, 50);
    console.log(`  ratio 200/20: ${ratio.toFixed(2)}   goal <= 1.5`);
  } finally {
    await stack.stop();
  }
}

runBench(main);
