/**
 * The ffmpeg child process. The binary is a static build with libx264 shipped inside the npm
 * package @ffmpeg-installer/<platform>; its executable bit comes from the tarball, so it works
 * without running the package's install script (npm 11 skips unapproved scripts).
 */
import ffmpegInstaller from '@ffmpeg-installer/ffmpeg';
import { spawn, type ChildProcess } from 'node:child_process';

import { EncoderError } from './errors';

export { EncoderError };

export interface FrameSink {
  /** Resolves once ffmpeg has taken the bytes, after which the buffer may be reused. */
  write(frame: Buffer): Promise<void>;
  /** Closes stdin and waits for ffmpeg to exit cleanly. */
  finish(): Promise<void>;
  /** Kills ffmpeg; for error paths. */
  abort(): void;
}

const STDERR_KEEP = 4000;

export function ffmpegPath(): string {
  return ffmpegInstaller.path;
}

/** Starts ffmpeg with `args` (which should read pipe:0) and returns a sink for its stdin. */
export function startFfmpeg(args: readonly string[]): FrameSink {
  const child = spawn(ffmpegPath(), ['-hide_banner', '-loglevel', 'error', ...args], {
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => {
    stderr = (stderr + text).slice(-STDERR_KEEP);
  });

  const exited = new Promise<void>((resolve, reject) => {
    child.once('error', (error) => reject(new EncoderError(`ffmpeg could not start: ${error.message}`)));
    child.once('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new EncoderError(`ffmpeg exited with ${signal ?? `code ${code}`}: ${stderr.trim()}`));
    });
  });
  // Rejections surface through finish(); this stops an early exit counting as unhandled meanwhile.
  exited.catch(() => undefined);
  // An early exit makes pending writes fail with EPIPE; each write reports that itself.
  child.stdin.on('error', () => undefined);

  return {
    write(frame) {
      const written = new Promise<void>((resolve, reject) => {
        child.stdin.write(frame, (error) => {
          if (error) void exitReason(child, exited, error).then(reject);
          else resolve();
        });
      });
      written.catch(() => undefined);
      return written;
    },
    async finish() {
      child.stdin.end();
      await exited;
    },
    abort() {
      child.kill('SIGKILL');
    },
  };
}

/** A failed write usually means ffmpeg died: its stderr explains more than EPIPE does. */
async function exitReason(child: ChildProcess, exited: Promise<void>, writeError: Error): Promise<Error> {
  child.kill('SIGKILL'); // no-op if it already exited; guarantees `exited` settles
  try {
    await exited;
  } catch (error) {
    return error as Error;
  }
  return new EncoderError(`Writing to ffmpeg failed: ${writeError.message}`);
}
