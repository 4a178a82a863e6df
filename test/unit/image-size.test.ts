import sharp from 'sharp';
import { MAX_IMAGE_SIDE, oversizeReason, readDeclaredSize } from '#domain/image-size';
import { imageDeclaring, withMetadataBefore, type BombFormat } from '#test-support/declared-size';

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
