import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Thumbnails } from '#domain/tasks/ports';

/** The few storage calls a thumbnail needs (ObjectStorage). */
export interface ThumbnailStorage {
  open(key: string): Promise<{ Body?: unknown } | undefined>;
  put(key: string, body: Buffer, contentType: string): Promise<string>;
}

/** ffmpeg gets this long to decode the first frame; a stuck decode is killed. */
const FFMPEG_TIMEOUT_MS = 30_000;
const STDERR_KEEP = 2_000;
const JPEG_MAGIC = Buffer.from([0xff, 0xd8, 0xff]);

/**
 * First frames with ffmpeg. The video is read back from our bucket into a temporary file (an
 * MP4 whose index comes last cannot be decoded from a pipe), and ffmpeg writes one JPEG of the
 * video's own size to stdout. `ffmpeg` resolves the binary: FFMPEG_PATH on Lambda (a layer),
 * @ffmpeg-installer's on a developer's machine.
 */
export class FfmpegThumbnails implements Thumbnails {
  constructor(
    private readonly storage: ThumbnailStorage,
    private readonly ffmpeg: () => Promise<string>,
  ) {}

  async firstFrame(videoKey: string, key: string): Promise<string> {
    const object = await this.storage.open(videoKey);
    if (!object?.Body) throw new Error(`The video ${videoKey} is not in the bucket.`);
    const folder = await mkdtemp(path.join(os.tmpdir(), 'thumbnail-'));
    try {
      const video = path.join(folder, 'video.mp4');
      await pipeline(object.Body as Readable, createWriteStream(video));
      const jpeg = await firstFrameOf(await this.ffmpeg(), video);
      return await this.storage.put(key, jpeg, 'image/jpeg');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  }
}

function firstFrameOf(ffmpeg: string, video: string): Promise<Buffer> {
  const args = ['-hide_banner', '-loglevel', 'error', '-i', video, '-frames:v', '1', '-q:v', '3', '-f', 'image2pipe', '-c:v', 'mjpeg', 'pipe:1'];
  return new Promise((resolve, reject) => {
    const child = spawn(ffmpeg, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => (stderr = (stderr + text).slice(-STDERR_KEEP)));
    const timer = setTimeout(() => child.kill('SIGKILL'), FFMPEG_TIMEOUT_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`ffmpeg could not start: ${error.message}`));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const jpeg = Buffer.concat(chunks);
      if (code === 0 && jpeg.subarray(0, 3).equals(JPEG_MAGIC)) resolve(jpeg);
      else reject(new Error(`ffmpeg made no frame (${signal ?? `exit ${code}`}): ${stderr.trim() || 'no output'}`));
    });
  });
}

/**
 * The ffmpeg binary: FFMPEG_PATH when configured (the copy worker's layer on AWS), otherwise the
 * @ffmpeg-installer package's, which only a developer's machine has (never bundled for Lambda).
 */
export function ffmpegBinary(configured: string | undefined): () => Promise<string> {
  return async () => {
    if (configured) return configured;
    if (process.env.VIDGEN_BUNDLE === 'lambda') throw new Error('No ffmpeg in this function: FFMPEG_PATH is not set.');
    const installer = (await import('@ffmpeg-installer/ffmpeg')) as { path?: string; default?: { path: string } };
    return installer.default?.path ?? installer.path!;
  };
}
