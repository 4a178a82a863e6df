import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import sharp from 'sharp';
import { ObjectStorage } from '#adapters/s3/object-storage';
import { createS3Client } from '#adapters/s3/s3-client';
import { IMAGE_ASPECT_RATIOS, OUTPUT_FORMATS, VIDEO_ASPECT_RATIOS } from '#domain/catalogue/catalogue';
import { imageDimensions, videoDimensions } from '#domain/catalogue/dimensions';
import type { ImageJob, VideoJob } from '#domain/providers/provider';
import {
  allSampleNames,
  imageSampleName,
  SAMPLE_IMAGE,
  SAMPLE_VIDEO,
  SAMPLES_SOURCE_DIR,
  videoSampleName,
} from '#providers/simulated/sample-outputs';
import { SimulatedProvider } from '#providers/simulated/simulated-provider';
import { IMAGE_JOB, VIDEO_JOB } from '#test-support/jobs';
import { inspectMp4 } from '#test-support/mp4';

/**
 * The sample outputs the simulated provider hands out where its renderers are not installed
 * (AWS, for test-mode tasks): one per aspect ratio and format the API sells, each a real file
 * of its kind and size, and what a job ends with, stored in the bucket (s3rver here).
 */

const sample = (name: string) => readFileSync(path.join(SAMPLES_SOURCE_DIR, name));
const SHARP_FORMAT = { png: 'png', jpg: 'jpeg', webp: 'webp' } as const;

describe('the samples in the repository', () => {
  it('are what the docs promise: videos 480p and 3 s, images at the 1k size', () => {
    expect(SAMPLE_VIDEO).toEqual({ resolution: '480p', durationSeconds: 3 });
    expect(SAMPLE_IMAGE).toEqual({ resolution: '1k' });
  });

  it('cover every aspect ratio and output format of the catalogue, and nothing else', () => {
    expect(allSampleNames()).toHaveLength(VIDEO_ASPECT_RATIOS.length + IMAGE_ASPECT_RATIOS.length * OUTPUT_FORMATS.length);
    const files = readdirSync(SAMPLES_SOURCE_DIR);
    expect(files.sort()).toEqual(allSampleNames().sort());
  });

  it.each(VIDEO_ASPECT_RATIOS)('video %s: an H.264 MP4 of that ratio, 480p, 3 s', (ratio) => {
    const facts = inspectMp4(sample(videoSampleName(ratio)));
    expect(facts.topLevel).toContain('ftyp');
    expect(facts.sampleEntry).toBe('avc1');
    expect({ width: facts.width, height: facts.height }).toEqual(videoDimensions(SAMPLE_VIDEO.resolution, ratio));
    expect(facts.durationSeconds).toBeCloseTo(SAMPLE_VIDEO.durationSeconds, 1);
  });

  it.each(IMAGE_ASPECT_RATIOS.flatMap((ratio) => OUTPUT_FORMATS.map((format) => [ratio, format] as const)))(
    'image %s as %s: that format, the 1k size of that ratio',
    async (ratio, format) => {
      const { format: decoded, width, height } = await sharp(sample(imageSampleName(ratio, format))).metadata();
      expect(decoded).toBe(SHARP_FORMAT[format]);
      expect({ width, height }).toEqual(imageDimensions(SAMPLE_IMAGE.resolution, ratio));
    },
  );
});

describe('a simulated provider with outputs: samples', () => {
  const s3 = createS3Client({ region: 'local', endpoint: process.env.TEST_S3_ENDPOINT! });
  const bucket = process.env.TEST_MEDIA_BUCKET!;
  const storage = new ObjectStorage(s3, bucket, 'http://127.0.0.1:1/media');
  const provider = new SimulatedProvider({
    storage,
    delayMs: 0,
    outputs: 'samples',
    fetchReference: () => Promise.reject(new Error('no references in these tests')),
  });
  const video: VideoJob = { ...VIDEO_JOB, aspectRatio: '9:16', duration: 10, resolution: '1080p' };
  const image: ImageJob = { ...IMAGE_JOB, resolution: '4k', aspectRatio: '4:5', outputFormat: 'webp' };
  const previousBundle = process.env.VIDGEN_BUNDLE;

  // As in a Lambda bundle: any attempt to render would throw.
  beforeAll(() => (process.env.VIDGEN_BUNDLE = 'lambda'));
  afterAll(() => {
    if (previousBundle === undefined) delete process.env.VIDGEN_BUNDLE;
    else process.env.VIDGEN_BUNDLE = previousBundle;
    s3.destroy();
  });

  async function completed(job: VideoJob | ImageJob): Promise<{ key: string; body: Buffer; contentType: string | undefined }> {
    const submitted = await provider.submit(job);
    if (submitted.type !== 'accepted') throw new Error(`not accepted: ${JSON.stringify(submitted)}`);
    const outcome = await provider.fetchResult(submitted.jobId);
    if (outcome.type !== 'completed') throw new Error(`not completed: ${JSON.stringify(outcome)}`);
    const key = new URL(outcome.outputUrls[0]!).pathname.replace(/^\/media\//, '');
    const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return { key, body: Buffer.from(await object.Body!.transformToByteArray()), contentType: object.ContentType };
  }

  it('ends a video job with the sample of its aspect ratio, whatever its size and duration', async () => {
    const { key, body, contentType } = await completed(video);
    expect(key).toMatch(/^provider-sim\/outputs\/sim_[0-9A-Z]{26}\.mp4$/);
    expect(contentType).toBe('video/mp4');
    expect(body.equals(sample('sample-video-9x16.mp4'))).toBe(true);
  });

  it('ends an image job with the sample of its aspect ratio and format', async () => {
    const { key, body, contentType } = await completed(image);
    expect(key).toMatch(/^provider-sim\/outputs\/sim_[0-9A-Z]{26}\.webp$/);
    expect(contentType).toBe('image/webp');
    expect(body.equals(sample('sample-image-4x5.webp'))).toBe(true);
  });

  it('answers a second poll with the same output', async () => {
    const submitted = await provider.submit({ ...image, outputFormat: 'jpg' });
    if (submitted.type !== 'accepted') throw new Error('not accepted');
    const first = await provider.fetchResult(submitted.jobId);
    expect(await provider.fetchResult(submitted.jobId)).toEqual(first);
  });

  it('keeps the magic words: sim:fail and sim:content fail, sim:reject is refused', async () => {
    const fail = await provider.submit({ ...video, prompt: 'sim:fail a storm' });
    const content = await provider.submit({ ...image, prompt: 'sim:content' });
    if (fail.type !== 'accepted' || content.type !== 'accepted') throw new Error('not accepted');
    expect(await provider.fetchResult(fail.jobId)).toMatchObject({ type: 'failed', code: 'upstream_error' });
    expect(await provider.fetchResult(content.jobId)).toMatchObject({ type: 'failed', code: 'content_rejected' });
    expect(await provider.submit({ ...video, prompt: 'sim:reject' })).toMatchObject({ type: 'rejected' });
  });

  it('cannot render in a Lambda bundle: with outputs: rendered it fails loudly instead', async () => {
    const rendering = new SimulatedProvider({ storage, delayMs: 0, fetchReference: () => Promise.reject(new Error('none')) });
    const submitted = await rendering.submit(image);
    if (submitted.type !== 'accepted') throw new Error('not accepted');
    await expect(rendering.fetchResult(submitted.jobId)).rejects.toThrow(/SIM_OUTPUTS=samples/);
  });
});
