import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, rm, stat } from 'node:fs/promises';
import sharp from 'sharp';
import { ffmpegPath } from '#providers/simulated/media/ffmpeg';
import { MediaInputError } from '#providers/simulated/media/image-input';
import { renderVideo, type RenderedFile } from '#providers/simulated/media/render-video';
import { inspectMp4 } from '#test-support/mp4';

const PROMPT = 'A paper boat drifting down a rainy street, close-up, 35mm';

/** The first decoded frame as RGB, through the same ffmpeg build the renderer uses. */
function firstFrameRgb(path: string): Buffer {
  return decodeFrames(path, ['-frames:v', '1']);
}

/** The last decoded frame as RGB (the frames reversed, then the first). */
function lastFrameRgb(path: string): Buffer {
  return decodeFrames(path, ['-vf', 'reverse', '-frames:v', '1']);
}

function decodeFrames(path: string, args: string[]): Buffer {
  const result = spawnSync(ffmpegPath(), ['-v', 'error', '-i', path, ...args, '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'], {
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`ffmpeg decode failed: ${result.stderr.toString()}`);
  return result.stdout;
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

function meanColour(rgb: Buffer): [number, number, number] {
  let r = 0;
  let g = 0;
  let b = 0;
  for (let i = 0; i < rgb.length; i += 3) {
    r += rgb[i] as number;
    g += rgb[i + 1] as number;
    b += rgb[i + 2] as number;
  }
  const pixels = rgb.length / 3;
  return [r / pixels, g / pixels, b / pixels];
}

describe('renderVideo', () => {
  const rendered: RenderedFile[] = [];
  const render = async (options: Parameters<typeof renderVideo>[0]) => {
    const video = await renderVideo(options);
    rendered.push(video);
    return video;
  };

  afterAll(async () => {
    await Promise.all(rendered.map((video) => rm(video.path, { force: true })));
  });

  it('writes a faststart H.264 MP4 of the requested length and size', async () => {
    const video = await render({ prompt: PROMPT, durationSeconds: 3, width: 320, height: 180 });
    const data = await readFile(video.path);

    expect(video.bytes).toBe(data.length);
    expect(data.toString('latin1', 4, 8)).toBe('ftyp');
    const facts = inspectMp4(data);
    expect(facts.topLevel).toContain('moov');
    // +faststart: the index comes before the media data, so playback can start while downloading.
    expect(facts.topLevel.indexOf('moov')).toBeLessThan(facts.topLevel.indexOf('mdat'));
    expect(facts.sampleEntry).toBe('avc1');
    expect(Math.abs(facts.durationSeconds - 3)).toBeLessThanOrEqual(0.1);
    expect({ width: facts.width, height: facts.height }).toEqual({ width: 320, height: 180 });
    expect(facts.sampleCount).toBe(3 * 24);
  });

  it('renders 1080p 16:9', async () => {
    const video = await render({ prompt: PROMPT, durationSeconds: 3, width: 1920, height: 1080 });
    const facts = inspectMp4(await readFile(video.path));

    expect(facts.sampleEntry).toBe('avc1');
    expect({ width: facts.width, height: facts.height }).toEqual({ width: 1920, height: 1080 });
    expect(Math.abs(facts.durationSeconds - 3)).toBeLessThanOrEqual(0.1);
  });

  it('honours fps and fractional durations', async () => {
    const video = await render({ prompt: PROMPT, durationSeconds: 4.5, width: 180, height: 320, fps: 12 });
    const facts = inspectMp4(await readFile(video.path));

    expect(Math.abs(facts.durationSeconds - 4.5)).toBeLessThanOrEqual(0.1);
    expect(facts.sampleCount).toBe(54);
    expect({ width: facts.width, height: facts.height }).toEqual({ width: 180, height: 320 });
  });

  it('opens on the supplied first frame', async () => {
    const orange = { r: 255, g: 140, b: 0 };
    const firstFrame = await sharp({ create: { width: 64, height: 36, channels: 3, background: orange } }).jpeg().toBuffer();

    const video = await render({ prompt: PROMPT, durationSeconds: 3, width: 320, height: 180, firstFrame });
    const data = await readFile(video.path);
    const facts = inspectMp4(data);

    expect(facts.sampleEntry).toBe('avc1');
    expect(Math.abs(facts.durationSeconds - 3)).toBeLessThanOrEqual(0.1);
    const [r, g, b] = meanColour(firstFrameRgb(video.path));
    expect(Math.abs(r - orange.r)).toBeLessThan(20);
    expect(Math.abs(g - orange.g)).toBeLessThan(20);
    expect(Math.abs(b - orange.b)).toBeLessThan(20);
  });

  it('ends on the supplied last frame', async () => {
    const orange = { r: 255, g: 140, b: 0 };
    const teal = { r: 0, g: 128, b: 128 };
    const image = (colour: typeof orange) => sharp({ create: { width: 64, height: 36, channels: 3, background: colour } }).png().toBuffer();
    const video = await render({ prompt: PROMPT, durationSeconds: 3, width: 320, height: 180, firstFrame: await image(orange), lastFrame: await image(teal) });

    const [r, g, b] = meanColour(lastFrameRgb(video.path));
    expect(Math.abs(r - teal.r)).toBeLessThan(20);
    expect(Math.abs(g - teal.g)).toBeLessThan(20);
    expect(Math.abs(b - teal.b)).toBeLessThan(20);
    // And it still opens on the first.
    expect(meanColour(firstFrameRgb(video.path))[0]).toBeGreaterThan(200);
  });

  it('gives byte-identical files for the same seed, and different ones for another seed or a negative prompt', async () => {
    const options = { prompt: PROMPT, durationSeconds: 3, width: 160, height: 90, seed: 4_294_967_295 };
    const [first, second, otherSeed, negative] = await Promise.all([
      render(options),
      render(options),
      render({ ...options, seed: 7 }),
      render({ ...options, negativePrompt: 'blurry, text' }),
    ]);
    const [a, b, c, d] = await Promise.all([first, second, otherSeed, negative].map(async (video) => sha256(await readFile(video.path))));
    expect(b).toBe(a);
    expect(c).not.toBe(a);
    expect(d).not.toBe(a);
  });

  it('rejects an unreadable first frame before starting ffmpeg', async () => {
    await expect(
      renderVideo({ prompt: PROMPT, durationSeconds: 3, width: 320, height: 180, firstFrame: Buffer.from('not an image') }),
    ).rejects.toThrow(MediaInputError);
  });

  it.each([
    ['too short', { durationSeconds: 2.9, width: 320, height: 180 }],
    ['too long', { durationSeconds: 12.5, width: 320, height: 180 }],
    ['odd width', { durationSeconds: 3, width: 321, height: 180 }],
    ['zero fps', { durationSeconds: 3, width: 320, height: 180, fps: 0 }],
  ])('rejects %s', async (_name, options) => {
    await expect(renderVideo({ prompt: PROMPT, ...options })).rejects.toThrow(RangeError);
  });

  it('leaves the file for the caller to delete', async () => {
    const video = await render({ prompt: '', durationSeconds: 3, width: 64, height: 64 });
    await expect(stat(video.path)).resolves.toMatchObject({ size: video.bytes });
  });
});
