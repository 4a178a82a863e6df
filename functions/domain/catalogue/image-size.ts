/**
 * The pixel size an image's header declares (PNG, JPEG, WebP, GIF), and the channels and bytes per
 * channel a decoder makes of it, read without decoding, so a small file that would decode to
 * gigabytes (a decompression bomb) is refused before anything decodes it. Pure: no I/O. A size that cannot be read is `undefined`: such a file cannot be
 * decoded either (a JPEG decoder needs its frame header before the scan data), and the decoder
 * keeps its own pixel limit as a second guard.
 *
 * A parser of our own rather than sharp's metadata(): the upload functions' bundles carry no
 * native modules, and this reads a byte range (a direct upload's first bytes) as well as a file.
 */
import type { Dimensions } from './dimensions';

/** Larger than any output or reference a model uses (4k images are 4096 on the long edge). */
export const MAX_IMAGE_SIDE = 8192;
/**
 * The most memory one image may decode to: an 8-bit RGBA image at the side cap. A side cap alone
 * let a 16-bit RGBA PNG at 8192x8192 through, 512 MiB decoded from a 522 KB file.
 */
export const MAX_DECODED_BYTES = MAX_IMAGE_SIDE * MAX_IMAGE_SIDE * 4;

/** The size an image declares and what one pixel takes decoded (channels x bytes per channel). */
export interface DeclaredImage extends Dimensions {
  channels: number;
  bytesPerChannel: 1 | 2;
}

const MiB = 1024 * 1024;

/** Why an image is too large, in words a client can act on; undefined when it is not (or its size is unknown). */
export function oversizeReason(bytes: Uint8Array): string | undefined {
  const image = readDeclaredImage(bytes);
  if (!image) return undefined;
  const { width, height, channels, bytesPerChannel } = image;
  if (width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE) {
    return `it declares ${width}x${height} pixels; at most ${MAX_IMAGE_SIDE} pixels per side are accepted`;
  }
  const decoded = width * height * channels * bytesPerChannel;
  if (decoded <= MAX_DECODED_BYTES) return undefined;
  return (
    `it declares ${width}x${height} pixels of ${channels} channels at ${bytesPerChannel * 8} bits, which decode to ` +
    `${Math.ceil(decoded / MiB)} MiB; at most ${MAX_DECODED_BYTES / MiB} MiB decoded are accepted`
  );
}

export function readDeclaredSize(bytes: Uint8Array): Dimensions | undefined {
  const image = readDeclaredImage(bytes);
  return image && { width: image.width, height: image.height };
}

/** The declared size, channels and depth, as libvips (sharp) decodes the file; undefined when unknown. */
export function readDeclaredImage(bytes: Uint8Array): DeclaredImage | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const has = (length: number) => bytes.length >= length;
  const text = (offset: number, length: number) => String.fromCharCode(...bytes.subarray(offset, offset + length));

  // PNG: the signature, then IHDR's width, height (big-endian), bit depth and colour type.
  if (has(26) && bytes[0] === 0x89 && text(1, 3) === 'PNG' && text(12, 4) === 'IHDR') {
    return { width: view.getUint32(16), height: view.getUint32(20), ...pngPixel(bytes, view, text) };
  }
  if (has(13) && (text(0, 6) === 'GIF87a' || text(0, 6) === 'GIF89a')) {
    // Decoded as RGBA, 8 bits.
    return { ...gifSize(bytes, view), channels: 4, bytesPerChannel: 1 };
  }
  if (has(16) && text(0, 4) === 'RIFF' && text(8, 4) === 'WEBP') return webpImage(bytes, view, text(12, 4));
  if (has(3) && bytes[0] === 0xff && bytes[1] === 0xd8) return jpegImage(bytes, view);
  return undefined;
}

/** Samples per pixel of each PNG colour type: grey, RGB, palette (decoded to RGB), grey+alpha, RGBA. */
const PNG_CHANNELS: Readonly<Record<number, number>> = { 0: 1, 2: 3, 3: 3, 4: 2, 6: 4 };

/**
 * A PNG pixel as decoded: 16-bit samples stay 16-bit, lower depths become 8-bit; a tRNS chunk
 * (before the image data) adds an alpha channel to grey, RGB and palette images. If the chunks
 * before the image data run past the bytes at hand, the alpha channel is counted.
 */
function pngPixel(bytes: Uint8Array, view: DataView, text: (offset: number, length: number) => string): Pick<DeclaredImage, 'channels' | 'bytesPerChannel'> {
  const depth = bytes[24]!;
  const colourType = bytes[25]!;
  const base = PNG_CHANNELS[colourType] ?? 4;
  const bytesPerChannel = depth === 16 ? 2 : 1;
  if (colourType === 4 || colourType === 6) return { channels: base, bytesPerChannel };
  // Chunks: length (4), type (4), data, CRC (4); IHDR's ends at 33.
  for (let offset = 33; offset + 8 <= bytes.length; offset += 12 + view.getUint32(offset)) {
    const type = text(offset + 4, 4);
    if (type === 'tRNS') return { channels: base + 1, bytesPerChannel };
    if (type === 'IDAT' || type === 'IEND') return { channels: base, bytesPerChannel };
  }
  return { channels: base + 1, bytesPerChannel };
}

/**
 * The logical screen, grown to hold every frame: decoders size the canvas by the frames, which
 * may reach past the screen. Blocks: extensions (0x21), frames (0x2c), the trailer (0x3b).
 */
function gifSize(bytes: Uint8Array, view: DataView): Dimensions {
  const colourTable = (flags: number) => (flags & 0x80 ? 3 * 2 ** ((flags & 0x07) + 1) : 0);
  const skipSubBlocks = (from: number) => {
    let offset = from;
    while (offset < bytes.length && bytes[offset] !== 0) offset += bytes[offset]! + 1;
    return offset + 1;
  };
  let width = view.getUint16(6, true);
  let height = view.getUint16(8, true);
  let offset = 13 + colourTable(bytes[10]!);
  while (offset < bytes.length) {
    const block = bytes[offset];
    if (block === 0x21) {
      offset = skipSubBlocks(offset + 2);
    } else if (block === 0x2c && offset + 10 <= bytes.length) {
      width = Math.max(width, view.getUint16(offset + 1, true) + view.getUint16(offset + 5, true));
      height = Math.max(height, view.getUint16(offset + 3, true) + view.getUint16(offset + 7, true));
      // The local colour table, the LZW code size, then the image data.
      offset = skipSubBlocks(offset + 10 + colourTable(bytes[offset + 9]!) + 1);
    } else {
      break;
    }
  }
  return { width, height };
}

/** The first chunk's data starts at 20. Decoded at 8 bits, RGB, or RGBA when the file says it has alpha. */
function webpImage(bytes: Uint8Array, view: DataView, chunk: string): DeclaredImage | undefined {
  const uint24 = (offset: number) => bytes[offset]! | (bytes[offset + 1]! << 8) | (bytes[offset + 2]! << 16);
  const pixel = (alpha: boolean) => ({ channels: alpha ? 4 : 3, bytesPerChannel: 1 as const });
  switch (chunk) {
    case 'VP8X': // flags (alpha: 0x10), then the canvas size minus one, 24 bits each
      return bytes.length >= 30 ? { width: uint24(24) + 1, height: uint24(27) + 1, ...pixel((bytes[20]! & 0x10) !== 0) } : undefined;
    case 'VP8 ': // a key frame's start code, then 14-bit sizes; no alpha
      if (bytes.length < 30 || bytes[23] !== 0x9d || bytes[24] !== 0x01 || bytes[25] !== 0x2a) return undefined;
      return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff, ...pixel(false) };
    case 'VP8L': { // signature 0x2f, then 14 bits width minus one, 14 bits height minus one, the alpha bit
      if (bytes.length < 25 || bytes[20] !== 0x2f) return undefined;
      const bits = view.getUint32(21, true);
      return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1, ...pixel(((bits >>> 28) & 1) === 1) };
    }
    default:
      return undefined;
  }
}

/** Start of frame markers (baseline, progressive, lossless, arithmetic); not DHT, JPG or DAC. */
const isStartOfFrame = (marker: number) => marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker);
/** Markers without a length: TEM, RST0-7, SOI. */
const standsAlone = (marker: number) => marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8);
const START_OF_SCAN = 0xda;
const END_OF_IMAGE = 0xd9;

/**
 * Walks the markers to the frame header. Like libjpeg's marker reader, it skips bytes that are
 * not a marker, so garbage between segments cannot hide a frame header the decoder would find.
 */
function jpegImage(bytes: Uint8Array, view: DataView): DeclaredImage | undefined {
  let offset = 2;
  for (;;) {
    while (offset < bytes.length && bytes[offset] !== 0xff) offset += 1;
    while (offset < bytes.length && bytes[offset] === 0xff) offset += 1;
    if (offset >= bytes.length) return undefined;
    const marker = bytes[offset]!;
    offset += 1;
    if (marker === 0x00 || standsAlone(marker)) continue;
    if (marker === START_OF_SCAN || marker === END_OF_IMAGE) return undefined;
    if (offset + 2 > bytes.length) return undefined;
    if (isStartOfFrame(marker)) {
      // Length (2), sample precision (1), height (2), width (2), components (1).
      if (offset + 8 > bytes.length) return undefined;
      return { width: view.getUint16(offset + 5), height: view.getUint16(offset + 3), channels: bytes[offset + 7]!, bytesPerChannel: bytes[offset + 2]! > 8 ? 2 : 1 };
    }
    offset += view.getUint16(offset);
  }
}
