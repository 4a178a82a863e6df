#!/usr/bin/env -S npx tsx
/**
 * `npm run samples`: renders the simulated provider's sample outputs (one MP4 per video aspect
 * ratio, one image per image aspect ratio and format) into
 * functions/providers/simulated/samples/, with the renderers the local stack uses. The files are
 * kept in git: the deployed functions hand them out for test-mode tasks without sharp or ffmpeg
 * (functions/providers/simulated/sample-outputs.ts). Run it after changing the catalogue's
 * aspect ratios or formats; a test fails until every sample exists.
 */
import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { imageDimensions, videoDimensions } from '#domain/catalogue/dimensions';
import { IMAGE_ASPECT_RATIOS, OUTPUT_FORMATS, VIDEO_ASPECT_RATIOS } from '#domain/catalogue/catalogue';
import { renderImage, renderVideo } from '#providers/simulated/media/index';
import {
  imageSampleName,
  SAMPLE_IMAGE,
  SAMPLE_PROMPT,
  SAMPLE_VIDEO,
  SAMPLES_SOURCE_DIR,
  videoSampleName,
} from '#providers/simulated/sample-outputs';

async function main(): Promise<void> {
  await mkdir(SAMPLES_SOURCE_DIR, { recursive: true });
  let bytes = 0;
  for (const aspectRatio of VIDEO_ASPECT_RATIOS) {
    const { width, height } = videoDimensions(SAMPLE_VIDEO.resolution, aspectRatio);
    const file = await renderVideo({ prompt: SAMPLE_PROMPT, durationSeconds: SAMPLE_VIDEO.durationSeconds, width, height });
    try {
      await copyFile(file.path, path.join(SAMPLES_SOURCE_DIR, videoSampleName(aspectRatio)));
      bytes += file.bytes;
    } finally {
      await rm(file.path, { force: true });
    }
  }
  for (const aspectRatio of IMAGE_ASPECT_RATIOS) {
    const { width, height } = imageDimensions(SAMPLE_IMAGE.resolution, aspectRatio);
    for (const format of OUTPUT_FORMATS) {
      const image = await renderImage({ prompt: SAMPLE_PROMPT, width, height, format });
      await writeFile(path.join(SAMPLES_SOURCE_DIR, imageSampleName(aspectRatio, format)), image);
      bytes += image.length;
    }
  }
  const count = VIDEO_ASPECT_RATIOS.length + IMAGE_ASPECT_RATIOS.length * OUTPUT_FORMATS.length;
  console.log(`${count} samples, ${(bytes / 1024).toFixed(0)} KiB, in ${path.relative(process.cwd(), SAMPLES_SOURCE_DIR)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
