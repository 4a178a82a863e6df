import { crc32 } from 'node:zlib';
import sharp from 'sharp';

/**
 * Small real images whose headers are rewritten to declare another pixel size: what a
 * decompression bomb looks like to anything that reads only the header (the file stays small).
 */
export type BombFormat = 'png' | 'jpeg' | 'webp' | 'gif';

const base = (format: BombFormat) =>
  sharp({ create: { width: 16, height: 8, channels: 3, background: { r: 10, g: 200, b: 30 } } })
    .toFormat(format)
    .toBuffer();

export async function imageDeclaring(format: BombFormat, width: number, height: number): Promise<Buffer> {
  const bytes = Buffer.from(await base(format));
  switch (format) {
    case 'png':
      return pngDeclaring(bytes, width, height);
    case 'gif': {
      // The logical screen, and the first frame's image descriptor (decoders go by the frames).
      bytes.writeUInt16LE(width, 6);
      bytes.writeUInt16LE(height, 8);
      const frame = bytes.indexOf(0x2c, 13);
      bytes.writeUInt16LE(width, frame + 5);
      bytes.writeUInt16LE(height, frame + 7);
      return bytes;
    }
    case 'webp':
      // A lossy WebP's key frame header: 14 bits each (so at most 16383).
      if (bytes.subarray(12, 16).toString('latin1') !== 'VP8 ') throw new Error('expected a lossy WebP');
      bytes.writeUInt16LE(width, 26);
      bytes.writeUInt16LE(height, 28);
      return bytes;
    case 'jpeg': {
      const sof = jpegFrameHeader(bytes);
      bytes.writeUInt16BE(height, sof + 5);
      bytes.writeUInt16BE(width, sof + 7);
      return bytes;
    }
  }
}

/** A copy of a PNG (any depth and colour type) whose IHDR declares width x height, its checksum fixed. */
export function pngDeclaring(png: Buffer, width: number, height: number): Buffer {
  const bytes = Buffer.from(png);
  bytes.writeUInt32BE(width, 16);
  bytes.writeUInt32BE(height, 20);
  bytes.writeUInt32BE(crc32(bytes.subarray(12, 29)), 29);
  return bytes;
}

/** Offset of the baseline frame header marker (FF C0) in a file sharp wrote. */
function jpegFrameHeader(bytes: Buffer): number {
  let offset = 2;
  while (bytes[offset] === 0xff && bytes[offset + 1] !== 0xc0) offset += 2 + bytes.readUInt16BE(offset + 2);
  if (bytes[offset + 1] !== 0xc0) throw new Error('no baseline frame header');
  return offset;
}

/** The JPEG with an application segment of `padding` bytes before its frame header. */
export function withMetadataBefore(jpeg: Buffer, padding: number): Buffer {
  const segments: Buffer[] = [];
  for (let left = padding; left > 0; left -= 65_533) {
    const length = Math.min(left, 65_533);
    const header = Buffer.from([0xff, 0xe1, 0, 0]);
    header.writeUInt16BE(length + 2, 2);
    segments.push(header, Buffer.alloc(length, 0x20));
  }
  return Buffer.concat([jpeg.subarray(0, 2), ...segments, jpeg.subarray(2)]);
}
