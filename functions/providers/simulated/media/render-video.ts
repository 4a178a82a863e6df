/**
 * A real, playable H.264 MP4 for the simulated provider. The static layers (prompt card, the
 * optional first frame) are drawn once in RGB and converted to YUV 4:2:0; each frame copies one,
 * draws the moving overlays straight into it and streams it into ffmpeg's stdin. Two reusable
 * frame buffers, so memory stays at a few frames whatever the duration.
 */
import { randomUUID } from 'node:crypto';
import { rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFfmpeg, type FrameSink } from './ffmpeg';
import { decodeToRaster } from './image-input';
import { INK, paletteFor, type Palette } from './palette';
import { drawPromptCard, drawTag, tagScale } from './prompt-card';
import { createRaster } from './raster';
import { crossfade, toYuv420, YUV420_COLOR_ARGS, yuv420Surface, type Yuv420Frame } from './yuv420';

export interface RenderVideoOptions {
  prompt: string;
  /** 3 to 12 seconds. */
  durationSeconds: number;
  /** Even pixel sizes, 16 to 4096: yuv420p halves the chroma planes. */
  width: number;
  height: number;
  /** Frames per second, 1 to 60; defaults to 24. */
  fps?: number;
  /** A JPEG, PNG or WebP shown, scaled to fit, for the opening second before fading to the prompt card. */
  firstFrame?: Buffer;
  /** A JPEG, PNG or WebP the card fades into for the closing second: the last frame is this image. */
  lastFrame?: Buffer;
  /** Decides the colours and shapes (with the prompt): the same seed and options give the same bytes. */
  seed?: number;
  /** Written on the card under the prompt. */
  negativePrompt?: string;
}

export interface RenderedFile {
  path: string;
  bytes: number;
}

const DEFAULT_FPS = 24;
const OPENING_HOLD_SECONDS = 1;
const OPENING_FADE_SECONDS = 0.5;
/** Seconds for the moving square to cross the frame and back. */
const BOUNCE_PERIOD_SECONDS = 4;

/**
 * Renders the video to a new file in the OS temp directory. The CALLER OWNS THE FILE and must
 * delete `path` once it is uploaded; on failure nothing is left behind. Throws RangeError for
 * out-of-range options, MediaInputError for an unreadable firstFrame and EncoderError if ffmpeg fails.
 */
export async function renderVideo(options: RenderVideoOptions): Promise<RenderedFile> {
  const { prompt, durationSeconds, width, height } = options;
  const fps = options.fps ?? DEFAULT_FPS;
  validate(durationSeconds, width, height, fps);

  const palette = paletteFor(prompt, options.seed);
  const cardRgb = createRaster(width, height);
  drawPromptCard(cardRgb, prompt, palette, options.negativePrompt);
  const card = toYuv420(cardRgb);
  const still = async (image: Buffer | undefined) =>
    image ? toYuv420(await decodeToRaster(image, width, height, 'contain', palette.bottom)) : undefined;
  const [opening, closing] = await Promise.all([still(options.firstFrame), still(options.lastFrame)]);

  const frameCount = Math.round(durationSeconds * fps);
  const path = join(tmpdir(), `simulated-video-${randomUUID()}.mp4`);
  const sink = startFfmpeg(encoderArgs(width, height, fps, path));
  try {
    await streamFrames(sink, { card, opening, closing, palette, fps, frameCount });
    await sink.finish();
    const { size } = await stat(path);
    return { path, bytes: size };
  } catch (error) {
    sink.abort();
    await rm(path, { force: true });
    throw error;
  }
}

function validate(durationSeconds: number, width: number, height: number, fps: number): void {
  if (!(durationSeconds >= 3 && durationSeconds <= 12)) {
    throw new RangeError(`durationSeconds must be between 3 and 12, got ${durationSeconds}`);
  }
  for (const [name, value] of [['width', width], ['height', height]] as const) {
    if (!Number.isInteger(value) || value < 16 || value > 4096 || value % 2 !== 0) {
      throw new RangeError(`${name} must be an even integer from 16 to 4096, got ${value}`);
    }
  }
  if (!Number.isInteger(fps) || fps < 1 || fps > 60) throw new RangeError(`fps must be an integer from 1 to 60, got ${fps}`);
}

/** ultrafast: the frames are flat colour, so speed matters far more than compression here. */
function encoderArgs(width: number, height: number, fps: number, path: string): string[] {
  return [
    ...['-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-video_size', `${width}x${height}`, '-framerate', String(fps)],
    ...['-i', 'pipe:0', '-an'],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-crf', '23', '-pix_fmt', 'yuv420p', ...YUV420_COLOR_ARGS],
    ...['-movflags', '+faststart', '-y', path],
  ];
}

interface Scene {
  card: Yuv420Frame;
  opening: Yuv420Frame | undefined;
  closing: Yuv420Frame | undefined;
  palette: Palette;
  fps: number;
  frameCount: number;
}

/** Double buffering: frame n+1 is drawn while ffmpeg still reads frame n. */
async function streamFrames(sink: FrameSink, scene: Scene): Promise<void> {
  const blank = (): Yuv420Frame => ({ ...scene.card, data: Buffer.allocUnsafe(scene.card.data.length) });
  const buffers = [blank(), blank()] as const;
  const inFlight: (Promise<void> | undefined)[] = [undefined, undefined];
  for (let index = 0; index < scene.frameCount; index++) {
    const slot = index % 2;
    await inFlight[slot];
    const frame = buffers[slot] as Yuv420Frame;
    drawFrame(frame, scene, index);
    inFlight[slot] = sink.write(frame.data);
  }
  await Promise.all(inFlight);
}

function drawFrame(frame: Yuv420Frame, scene: Scene, index: number): void {
  const seconds = index / scene.fps;
  // Frames left after this one, in seconds: the closing mirrors the opening.
  const remaining = (scene.frameCount - 1 - index) / scene.fps;
  const { card, opening, closing } = scene;
  if (opening && seconds < OPENING_HOLD_SECONDS) {
    opening.data.copy(frame.data);
    // The very first frame is the supplied image untouched, as image-to-video promises.
    if (index === 0) return;
  } else if (opening && seconds < OPENING_HOLD_SECONDS + OPENING_FADE_SECONDS) {
    crossfade(frame.data, opening.data, card.data, (seconds - OPENING_HOLD_SECONDS) / OPENING_FADE_SECONDS);
  } else if (closing && remaining < OPENING_HOLD_SECONDS) {
    closing.data.copy(frame.data);
    // And the very last one is the end image untouched.
    if (index === scene.frameCount - 1) return;
  } else if (closing && remaining < OPENING_HOLD_SECONDS + OPENING_FADE_SECONDS) {
    crossfade(frame.data, closing.data, card.data, (remaining - OPENING_HOLD_SECONDS) / OPENING_FADE_SECONDS);
  } else {
    card.data.copy(frame.data);
  }
  drawMotion(frame, scene, index, seconds);
}

/** A bouncing square, a progress bar and a frame counter: proof that the video really plays. */
function drawMotion(frame: Yuv420Frame, scene: Scene, index: number, seconds: number): void {
  const surface = yuv420Surface(frame);
  const { width, height } = frame;
  const { accent } = scene.palette;

  // Even sizes and positions keep edges on chroma-sample boundaries: no colour fringes.
  const side = even(Math.max(4, Math.min(width, height) / 9));
  const phase = (seconds % BOUNCE_PERIOD_SECONDS) / BOUNCE_PERIOD_SECONDS;
  const travel = 1 - Math.abs(2 * phase - 1);
  const x = even(side / 2 + travel * (width - 2 * side));
  const y = even(height * 0.8 - side / 2 + Math.sin(2 * Math.PI * seconds) * height * 0.04);
  const border = even(Math.max(2, side / 12));
  surface.fillRect(x - border, y - border, side + 2 * border, side + 2 * border, INK);
  surface.fillRect(x, y, side, side, accent);

  const barHeight = even(Math.max(2, height / 90));
  surface.fillRect(0, height - barHeight, even((width * (index + 1)) / scene.frameCount), barHeight, accent);

  const scale = tagScale(surface);
  drawTag(surface, `FRAME ${index + 1}/${scene.frameCount} ${seconds.toFixed(2)}S`, 4 * scale, 4 * scale, scale);
}

function even(value: number): number {
  return Math.round(value / 2) * 2;
}
