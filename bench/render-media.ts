/**
 * How long the simulated provider takes to make real media, at the sizes the API sells.
 * Run: npx tsx bench/render-media.ts
 *
 * "cpu" adds this process's CPU time to that of finished child processes (ffmpeg), read from
 * /proc on Linux: on a busy machine it is steadier than wall time, and cpu / wall shows how
 * well the two cores were used.
 */
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { renderImage, renderVideo } from '#providers/simulated/media/index';

const PROMPT = 'A lighthouse on a cliff at dusk, waves crashing below, slow dolly-in, volumetric fog';

/** Seconds of CPU used by this process and its reaped children; children count 0 off Linux. */
function cpuSeconds(): number {
  const own = process.cpuUsage();
  let children = 0;
  try {
    // Fields after the command name: cutime and cstime are the 14th and 15th, in 1/100 s ticks.
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
    children = (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    // Not Linux: report this process only.
  }
  return (own.user + own.system) / 1e6 + children;
}

async function measure<T>(label: string, run: () => Promise<T>, size: (result: T) => number): Promise<T> {
  const wallStart = performance.now();
  const cpuStart = cpuSeconds();
  const result = await run();
  const wall = (performance.now() - wallStart) / 1000;
  const cpu = cpuSeconds() - cpuStart;
  const kib = (size(result) / 1024).toFixed(0);
  console.log(`${label.padEnd(30)} wall ${wall.toFixed(2).padStart(5)} s   cpu ${cpu.toFixed(2).padStart(5)} s   ${kib.padStart(6)} KiB`);
  return result;
}

async function main(): Promise<void> {
  const videos = [
    { label: 'video 5 s 1280x720 24 fps', durationSeconds: 5, width: 1280, height: 720 },
    { label: 'video 12 s 1920x1080 24 fps', durationSeconds: 12, width: 1920, height: 1080 },
  ];
  for (const { label, ...size } of videos) {
    const video = await measure(label, () => renderVideo({ prompt: PROMPT, ...size }), (v) => v.bytes);
    await rm(video.path, { force: true });
  }
  for (const format of ['png', 'webp'] as const) {
    await measure(
      `image 4096x4096 ${format}`,
      () => renderImage({ prompt: PROMPT, width: 4096, height: 4096, format }),
      (image) => image.length,
    );
  }
  const reference = await renderImage({ prompt: 'reference', width: 1024, height: 1024, format: 'jpg' });
  await measure(
    'image 4096x2304 jpg, 2 refs',
    () => renderImage({ prompt: PROMPT, width: 4096, height: 2304, format: 'jpg', references: [reference, reference] }),
    (image) => image.length,
  );
}

void main();
