import { createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { pipeline } from 'node:stream/promises';

/** A download that did not work: reported like an API failure (exit code 1). */
export class DownloadError extends Error {}

/**
 * Streams `url` into `file` without holding it in memory. The bytes go to a temporary file
 * next to it that is renamed at the end, so `file` is never left half-written. Media URLs are
 * public: no API key is sent. Returns the number of bytes written.
 */
export async function download(url: string, file: string, signal?: AbortSignal): Promise<number> {
  let response: Response;
  try {
    response = await fetch(url, signal ? { signal } : {});
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    const cause = (error as { cause?: Error }).cause?.message ?? (error as Error).message;
    throw new DownloadError(`Could not download ${url}: ${cause}`);
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    throw new DownloadError(`Could not download ${url}: HTTP ${response.status}.`);
  }
  const target = path.resolve(file);
  const partial = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.part`);
  try {
    const body = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
    await pipeline(body, createWriteStream(partial), signal ? { signal } : {});
    await rename(partial, target);
    return (await stat(target)).size;
  } catch (error) {
    await rm(partial, { force: true });
    if (signal?.aborted) throw signal.reason;
    throw new DownloadError(`Could not save ${url} to ${file}: ${(error as Error).message}`);
  }
}

/** Where result number `index` (0-based) of several goes: x.png, x-2.png, x-3.png ... */
export function numberedFile(file: string, index: number): string {
  if (index === 0) return file;
  const ext = path.extname(file);
  return `${file.slice(0, file.length - ext.length)}-${index + 1}${ext}`;
}
