/**
 * What kind of image a file is, decided from its first bytes (magic numbers) and never from its
 * name or the Content-Type a client declared (POST /upload). Only JPEG, PNG and
 * WebP are accepted; anything else, including a header cut short, is `undefined`.
 *
 * This looks at the header only: it does not prove the rest of the file decodes.
 */

export type ImageContentType = 'image/jpeg' | 'image/png' | 'image/webp';

/** File extension for each accepted type (used to name stored objects). */
export const IMAGE_EXTENSIONS: Readonly<Record<ImageContentType, string>> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
};

/** Largest accepted upload: 10 MiB. */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

/** SOI marker followed by the first byte of the next marker. */
const JPEG_SIGNATURE = [0xff, 0xd8, 0xff];
/** The PNG signature, then the first chunk, which must be IHDR with a 13-byte length. */
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const PNG_IHDR = [0x00, 0x00, 0x00, 0x0d, ...ascii('IHDR')];
/** A WebP file's first chunk, right after 'RIFF' <size> 'WEBP'. */
const WEBP_CHUNKS = ['VP8 ', 'VP8L', 'VP8X'];
/** The RIFF size counts 'WEBP' and at least one chunk header (4 + 8 bytes). */
const WEBP_MIN_RIFF_SIZE = 12;

export function sniffImageType(bytes: Uint8Array): ImageContentType | undefined {
  if (startsWith(bytes, JPEG_SIGNATURE)) return 'image/jpeg';
  if (startsWith(bytes, PNG_SIGNATURE) && startsWith(bytes, PNG_IHDR, PNG_SIGNATURE.length)) return 'image/png';
  if (isWebp(bytes)) return 'image/webp';
  return undefined;
}

function isWebp(bytes: Uint8Array): boolean {
  if (bytes.length < 16) return false;
  if (!startsWith(bytes, ascii('RIFF')) || !startsWith(bytes, ascii('WEBP'), 8)) return false;
  const riffSize = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(4, true);
  if (riffSize < WEBP_MIN_RIFF_SIZE) return false;
  return WEBP_CHUNKS.some((chunk) => startsWith(bytes, ascii(chunk), 12));
}

function startsWith(bytes: Uint8Array, expected: readonly number[], offset = 0): boolean {
  if (bytes.length < offset + expected.length) return false;
  return expected.every((byte, index) => bytes[offset + index] === byte);
}

function ascii(text: string): number[] {
  return Array.from(text, (char) => char.charCodeAt(0));
}
