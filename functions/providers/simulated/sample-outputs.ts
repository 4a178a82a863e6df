/**
 * Sample outputs: ready-made media the simulated provider hands out instead of rendering, where
 * its renderers (sharp and ffmpeg: native, never bundled) are not installed. That is AWS, where
 * test-mode tasks run on the simulated provider whatever the stage's provider is.
 *
 * One file per video aspect ratio (an H.264 MP4, 480p, 3 s) and one per image aspect ratio and
 * output format (the 1k size), made with the renderers themselves by `npm run samples`
 * (bin/render-samples.ts) and kept in git. A sample has the requested aspect ratio and format;
 * its pixel size and duration are the smallest the API sells, whatever the task asked for
 * (docs/tasks.md, "Test mode on AWS").
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { IMAGE_ASPECT_RATIOS, OUTPUT_FORMATS, VIDEO_ASPECT_RATIOS, type ImageAspectRatio, type OutputFormat, type VideoAspectRatio } from '#domain/catalogue/catalogue';
import type { GenerationJob } from '#domain/providers/provider';

/** What a sample shows instead of the task's prompt. */
export const SAMPLE_PROMPT = 'vidgen test mode: a sample output';
export const SAMPLE_VIDEO = { resolution: '480p', durationSeconds: 3 } as const;
export const SAMPLE_IMAGE = { resolution: '1k' } as const;

/** Where the samples live in the source tree (a Lambda bundle has them next to its index.js). */
export const SAMPLES_SOURCE_DIR = path.join(__dirname, 'samples');

const ratioName = (aspectRatio: string) => aspectRatio.replace(':', 'x');

export function videoSampleName(aspectRatio: VideoAspectRatio): string {
  return `sample-video-${ratioName(aspectRatio)}.mp4`;
}

export function imageSampleName(aspectRatio: ImageAspectRatio, format: OutputFormat): string {
  return `sample-image-${ratioName(aspectRatio)}.${format}`;
}

/** Every sample's file name: what `npm run samples` makes and what a bundle must carry. */
export function allSampleNames(): string[] {
  return [
    ...VIDEO_ASPECT_RATIOS.map(videoSampleName),
    ...IMAGE_ASPECT_RATIOS.flatMap((ratio) => OUTPUT_FORMATS.map((format) => imageSampleName(ratio, format))),
  ];
}

export function sampleNameFor(job: GenerationJob): string {
  return job.kind === 'video' ? videoSampleName(job.aspectRatio) : imageSampleName(job.aspectRatio, job.outputFormat);
}

/** The sample for a job: next to the bundle on Lambda, else from the source tree. */
export async function readSample(job: GenerationJob, directories: readonly string[] = [__dirname, SAMPLES_SOURCE_DIR]): Promise<Buffer> {
  const name = sampleNameFor(job);
  const found = directories.map((directory) => path.join(directory, name)).find((file) => existsSync(file));
  if (!found) throw new Error(`The sample output ${name} is missing: looked in ${directories.join(', ')}.`);
  return readFile(found);
}
