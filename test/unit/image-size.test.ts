import sharp from 'sharp';
import { MAX_DECODED_BYTES, MAX_IMAGE_SIDE, oversizeReason, readDeclaredImage, readDeclaredSize } from '#domain/catalogue/image-size';
import { imageDeclaring, pngDeclaring, withMetadataBefore, type BombFormat } from '#test-support/declared-size';

/** The declared pixel size, read from headers without decoding (decompression bombs, issue 17 G). */
const FORMATS: BombFormat[] = ['png', 'jpeg', 'webp', 'gif'];
const create = (width: number, height: number, channels: 3 | 4 = 3) =>
  sharp({ create: { width, height, channels, background: { r: 40, g: 90, b: 200, alpha: 0.5 } } });

describe('readDeclaredSize', () => {
  it('reads real files of every format, as sharp does', async () => {
    const files = [
      await create(37, 21).png().toBuffer(),
      await create(37, 21).jpeg().toBuffer(),
      await create(37, 21).jpeg({ progressive: true }).toBuffer(),
      await create(37, 21).webp().toBuffer(),
      await create(37, 21).webp({ lossless: true }).toBuffer(),
      await create(37, 21, 4).webp().toBuffer(),
      await create(37, 21).gif().toBuffer(),
    ];
    for (const file of files) expect(readDeclaredSize(file)).toEqual({ width: 37, height: 21 });
  });

  it.each(FORMATS)('reads the size a small %s declares, the same size sharp reads from its header', async (format) => {
    const bomb = await imageDeclaring(format, 16000, 12000);
    expect(bomb.length).toBeLessThan(1000);
    const { width, height } = await sharp(bomb).metadata();
    expect({ width, height }).toEqual({ width: 16000, height: 12000 });
    expect(readDeclaredSize(bomb)).toEqual({ width: 16000, height: 12000 });
  });

  it('finds a JPEG frame header behind large metadata, and behind bytes that are not a marker', async () => {
    const jpeg = await imageDeclaring('jpeg', 9000, 40);
    expect(readDeclaredSize(withMetadataBefore(jpeg, 300_000))).toEqual({ width: 9000, height: 40 });
    // libjpeg skips garbage to the next marker; so must we, or garbage would hide the frame.
    const garbage = Buffer.concat([jpeg.subarray(0, 2), Buffer.from('not a marker'), jpeg.subarray(2)]);
    expect((await sharp(garbage).metadata()).width).toBe(9000);
    expect(readDeclaredSize(garbage)).toEqual({ width: 9000, height: 40 });
  });

  it('knows no size for a file cut before its size, or for what is not an image', async () => {
    const png = await create(8, 8).png().toBuffer();
    expect(readDeclaredSize(png.subarray(0, 23))).toBeUndefined();
    expect(readDeclaredSize(withMetadataBefore(await create(8, 8).jpeg().toBuffer(), 70_000).subarray(0, 64 * 1024))).toBeUndefined();
    expect(readDeclaredSize(Buffer.from('plain text, long enough to be read as a header'))).toBeUndefined();
    expect(readDeclaredSize(Buffer.alloc(0))).toBeUndefined();
  });
});

describe('oversizeReason', () => {
  it.each(FORMATS)('refuses a %s declaring more than 8192 pixels on either side, naming the limit', async (format) => {
    expect(MAX_IMAGE_SIDE).toBe(8192);
    expect(oversizeReason(await imageDeclaring(format, 16000, 16000))).toBe(
      'it declares 16000x16000 pixels; at most 8192 pixels per side are accepted',
    );
    expect(oversizeReason(await imageDeclaring(format, 8193, 10))).toMatch(/8193x10 pixels/);
    expect(oversizeReason(await imageDeclaring(format, 10, 8193))).toMatch(/10x8193 pixels/);
    expect(oversizeReason(await imageDeclaring(format, 8192, 8192))).toBeUndefined();
  });
});

describe('the decoded size (pixels x channels x bytes per channel), not only the sides', () => {
  const rgba = { r: 40, g: 90, b: 200, alpha: 0.5 };
  /** A real 16-bit RGBA PNG, as sharp writes one. */
  const rgba16Png = () => create(16, 8, 4).toColourspace('rgb16').png().toBuffer();

  it('refuses a 16-bit RGBA PNG at the side cap (512 MiB decoded), naming both sizes and the bound', async () => {
    expect(MAX_DECODED_BYTES).toBe(256 * 1024 * 1024);
    const png = await rgba16Png();
    expect(await sharp(png).metadata()).toMatchObject({ channels: 4, depth: 'ushort' });
    const bomb = pngDeclaring(png, 8192, 8192);
    expect(bomb.length).toBeLessThan(1000);
    expect(oversizeReason(bomb)).toBe(
      'it declares 8192x8192 pixels of 4 channels at 16 bits, which decode to 512 MiB; at most 256 MiB decoded are accepted',
    );
    // Half the pixels decode to 256 MiB: accepted, as is an 8-bit RGBA image at the side cap.
    expect(oversizeReason(pngDeclaring(png, 8192, 4096))).toBeUndefined();
    expect(oversizeReason(pngDeclaring(await create(16, 8, 4).png().toBuffer(), 8192, 8192))).toBeUndefined();
  });

  it('counts the channels and bytes per channel the decoder makes, as sharp reports them', async () => {
    const solid = (channels: 3 | 4) => sharp({ create: { width: 16, height: 8, channels, background: rgba } });
    const files: Record<string, Buffer> = {
      'png grey': await solid(3).toColourspace('b-w').png().toBuffer(),
      'png grey 16-bit': await solid(3).toColourspace('grey16').png().toBuffer(),
      'png grey and alpha': await solid(4).toColourspace('b-w').png().toBuffer(),
      'png rgb': await solid(3).png().toBuffer(),
      'png rgb 16-bit': await solid(3).toColourspace('rgb16').png().toBuffer(),
      'png rgba': await solid(4).png().toBuffer(),
      'png rgba 16-bit': await rgba16Png(),
      'png palette': await solid(3).png({ palette: true }).toBuffer(),
      'png palette with transparency': await solid(4).png({ palette: true }).toBuffer(),
      'jpeg grey': await solid(3).toColourspace('b-w').jpeg().toBuffer(),
      'jpeg rgb': await solid(3).jpeg().toBuffer(),
      'jpeg cmyk': await solid(3).toColourspace('cmyk').jpeg().toBuffer(),
      'webp lossy': await solid(3).webp().toBuffer(),
      'webp lossy with alpha': await solid(4).webp().toBuffer(),
      'webp lossless': await solid(3).webp({ lossless: true }).toBuffer(),
      'webp lossless with alpha': await solid(4).webp({ lossless: true }).toBuffer(),
      gif: await solid(3).gif().toBuffer(),
    };
    for (const [name, file] of Object.entries(files)) {
      const { channels, depth } = await sharp(file).metadata();
      expect({ name, ...readDeclaredImage(file) }).toEqual({ name, width: 16, height: 8, channels, bytesPerChannel: depth === 'ushort' ? 2 : 1 });
    }
  });
});
