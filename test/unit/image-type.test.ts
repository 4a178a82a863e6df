import sharp from 'sharp';
import {
  IMAGE_EXTENSIONS,
  MAX_UPLOAD_BYTES,
  sniffImageType,
  type ImageContentType,
} from '#domain/catalogue/image-type';

/** Real files, encoded by sharp, so the table does not depend on hand-written headers. */
const opaque = () => sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 200, g: 10, b: 10 } } });
const translucent = () =>
  sharp({ create: { width: 8, height: 8, channels: 4, background: { r: 200, g: 10, b: 10, alpha: 0.5 } } });

/** How many leading bytes each type's header needs before it can be recognised. */
const HEADER_LENGTH: Record<ImageContentType, number> = { 'image/jpeg': 3, 'image/png': 16, 'image/webp': 16 };

let files: Array<{ name: string; type: ImageContentType; bytes: Buffer }>;

beforeAll(async () => {
  files = [
    { name: 'baseline JPEG', type: 'image/jpeg', bytes: await opaque().jpeg().toBuffer() },
    { name: 'progressive JPEG', type: 'image/jpeg', bytes: await opaque().jpeg({ progressive: true }).toBuffer() },
    { name: 'PNG', type: 'image/png', bytes: await opaque().png().toBuffer() },
    { name: 'PNG with alpha', type: 'image/png', bytes: await translucent().png().toBuffer() },
    { name: "lossy WebP ('VP8 ')", type: 'image/webp', bytes: await opaque().webp().toBuffer() },
    { name: "lossless WebP ('VP8L')", type: 'image/webp', bytes: await opaque().webp({ lossless: true }).toBuffer() },
    { name: "extended WebP ('VP8X')", type: 'image/webp', bytes: await translucent().webp().toBuffer() },
  ];
});

const text = (value: string) => Buffer.from(value, 'utf8');
const bytes = (...parts: Array<string | number[]>) =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : Buffer.from(part))));
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const le32 = (value: number) => [value & 0xff, (value >>> 8) & 0xff, (value >>> 16) & 0xff, (value >>> 24) & 0xff];

describe('sniffImageType on real images', () => {
  it('makes the files it claims to (guards the table itself)', () => {
    expect(files.map((file) => file.bytes.subarray(12, 16).toString('latin1')).slice(4)).toEqual(['VP8 ', 'VP8L', 'VP8X']);
  });

  it('recognises every whole file', () => {
    for (const file of files) expect([file.name, sniffImageType(file.bytes)]).toEqual([file.name, file.type]);
  });

  it('recognises a file cut anywhere after its header (the header is all it reads)', () => {
    for (const file of files) {
      const header = HEADER_LENGTH[file.type];
      for (const length of [header, header + 1, Math.floor(file.bytes.length / 2), file.bytes.length - 1]) {
        expect([file.name, length, sniffImageType(file.bytes.subarray(0, length))]).toEqual([file.name, length, file.type]);
      }
    }
  });

  it('refuses every file cut inside its header', () => {
    for (const file of files) {
      for (let length = 0; length < HEADER_LENGTH[file.type]; length += 1) {
        expect([file.name, length, sniffImageType(file.bytes.subarray(0, length))]).toEqual([file.name, length, undefined]);
      }
    }
  });

  it('reads a view into a larger buffer from its own start', () => {
    const png = files.find((file) => file.type === 'image/png')!.bytes;
    const webp = files.find((file) => file.type === 'image/webp')!.bytes;
    const padded = Buffer.concat([text('padding!'), webp, png]);

    expect(sniffImageType(padded)).toBeUndefined();
    expect(sniffImageType(padded.subarray(8))).toBe('image/webp');
    expect(sniffImageType(new Uint8Array(padded.buffer, padded.byteOffset + 8 + webp.length, png.length))).toBe('image/png');
  });

  it('does not recognise a GIF, which sharp can also write', async () => {
    const gif = await opaque().gif().toBuffer();

    expect(gif.subarray(0, 6).toString('latin1')).toBe('GIF89a');
    expect(sniffImageType(gif)).toBeUndefined();
  });
});

describe('sniffImageType on things that are not JPEG, PNG or WebP', () => {
  const cases: Array<[string, Buffer]> = [
    ['empty input', Buffer.alloc(0)],
    ['a text file renamed photo.jpg', text('Just some notes, saved as photo.jpg.\n')],
    ['a text file renamed image.png that mentions PNG and IHDR', text('PNG IHDR chunk notes\r\n')],
    ['a UTF-8 text file with a byte order mark', text('\uFEFFhello')],
    ['an HTML file starting with <', text('<!doctype html><html><body><img src=x onerror=alert(1)></body></html>')],
    ['an SVG file', text('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')],
    ['a JSON file', text('{"image": "data"}')],
    ['GIF87a', bytes('GIF87a', [0x08, 0x00, 0x08, 0x00, 0x80, 0x00, 0x00])],
    ['GIF89a', bytes('GIF89a', [0x08, 0x00, 0x08, 0x00, 0x80, 0x00, 0x00])],
    ['BMP', bytes('BM', [0x46, 0, 0, 0, 0, 0, 0, 0, 0x36, 0, 0, 0, 0x28, 0, 0, 0])],
    ['a PNG signature followed by garbage', bytes(PNG_SIGNATURE, 'this is not a chunk at all')],
    ['a PNG signature followed by a non-IHDR first chunk', bytes(PNG_SIGNATURE, [0, 0, 0, 13], 'IDAT', Array(17).fill(0))],
    ['a PNG signature with an IHDR of the wrong length', bytes(PNG_SIGNATURE, [0, 0, 0, 14], 'IHDR', Array(18).fill(0))],
    ['a PNG signature with a lowercase ihdr', bytes(PNG_SIGNATURE, [0, 0, 0, 13], 'ihdr', Array(17).fill(0))],
    [
      'a PNG signature whose line endings were converted (CRLF -> LF)',
      bytes([0x89, 0x50, 0x4e, 0x47, 0x0a, 0x1a, 0x0a], [0, 0, 0, 13], 'IHDR', Array(17).fill(0)),
    ],
    [
      'a RIFF/WAVE file',
      bytes('RIFF', le32(36), 'WAVE', 'fmt ', le32(16), [1, 0, 1, 0, 0x44, 0xac, 0, 0, 0x88, 0x58, 1, 0, 2, 0, 16, 0], 'data', le32(0)),
    ],
    ['a RIFF/AVI file', bytes('RIFF', le32(100), 'AVI ', 'LIST', le32(88))],
    ['RIFF WEBP followed by text (a polyglot)', bytes('RIFF', le32(100), 'WEBP', 'text, not a VP8 chunk')],
    ['RIFF WEBP with a lowercase chunk name', bytes('RIFF', le32(100), 'WEBP', 'vp8 ', le32(80))],
    ['RIFF WEBP whose RIFF size cannot hold a chunk', bytes('RIFF', le32(4), 'WEBP', 'VP8 ', le32(80))],
    ['RIFF WEBP without its size field', bytes('RIFF', 'WEBP', 'VP8 ', le32(80))],
    ['JPEG SOI without the following marker', Buffer.from([0xff, 0xd8, 0x00, 0xe0])],
    ['a JPEG signature behind a text preamble', Buffer.concat([text('x'), Buffer.from([0xff, 0xd8, 0xff, 0xe0])])],
    ['zeros', Buffer.alloc(64)],
  ];

  it.each(cases)('%s -> undefined', (_name, input) => {
    expect(sniffImageType(input)).toBeUndefined();
  });

  it('accepts a plain Uint8Array as well as a Buffer', () => {
    expect(sniffImageType(new Uint8Array([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg');
    expect(sniffImageType(new Uint8Array([0xff, 0xd8]))).toBeUndefined();
  });
});

describe('upload constants', () => {
  it('maps each accepted type to its file extension', () => {
    expect(IMAGE_EXTENSIONS).toEqual({ 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp' });
  });

  it('allows 10 MiB', () => {
    expect(MAX_UPLOAD_BYTES).toBe(10_485_760);
  });
});
