import { sniffImageType } from './image-type';

/** What a task makes: a video or an image. */
export type MediaKind = 'video' | 'image';

/** Enough leading bytes to tell the kinds apart. */
export const MEDIA_SNIFF_BYTES = 32;

/**
 * The kind of a file, from its first bytes (never from a name or a declared Content-Type): an
 * ISO BMFF video (MP4, whose first box is `ftyp`) or a JPEG, PNG or WebP image.
 */
export function sniffMediaKind(head: Uint8Array): MediaKind | undefined {
  if (sniffImageType(head)) return 'image';
  const bytes = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  if (bytes.length >= 12 && bytes.readUInt32BE(0) >= 8 && bytes.toString('latin1', 4, 8) === 'ftyp') return 'video';
  return undefined;
}

/**
 * A provider output we will not take as a task's result: one of our own objects outside a
 * provider's output folder, or a file that is not the media the task makes. Trying again cannot
 * help, so the task fails (refunded) at once.
 */
export class OutputRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutputRefusedError';
  }
}

/** Throws OutputRefusedError unless `head` starts a file of `kind`. */
export function assertMediaKind(head: Uint8Array, kind: MediaKind, source: string): void {
  const found = sniffMediaKind(head);
  if (found !== kind) {
    throw new OutputRefusedError(`The output ${source.slice(0, 200)} is ${found ? `an ${found}` : 'no video or image we know'}, not the ${kind} the task makes.`);
  }
}
