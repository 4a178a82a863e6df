import { createRaster } from '#providers/simulated/media/raster';
import { crossfade, toYuv, toYuv420, yuv420Surface } from '#providers/simulated/media/yuv420';

describe('YUV 4:2:0 (BT.709, limited range)', () => {
  it('maps black, white and primaries to the standard code values', () => {
    expect(toYuv([0, 0, 0])).toEqual([16, 128, 128]);
    expect(toYuv([255, 255, 255])).toEqual([235, 128, 128]);
    expect(toYuv([255, 0, 0])).toEqual([63, 102, 240]);
    expect(toYuv([0, 0, 255])).toEqual([32, 240, 118]);
  });

  it('converts a raster plane by plane, agreeing with the per-colour conversion', () => {
    const colour = [200, 80, 30] as const;
    const frame = toYuv420(createRaster(4, 2, colour));
    const [y, u, v] = toYuv(colour);

    expect([...frame.data]).toEqual([...Array(8).fill(y), u, u, v, v]);
  });

  it('fills rectangles on the luma grid and the half-size chroma grid', () => {
    const frame = toYuv420(createRaster(4, 4, [0, 0, 0]));
    yuv420Surface(frame).fillRect(2, 2, 2, 2, [255, 255, 255]);

    const luma = [...frame.data.subarray(0, 16)];
    expect(luma).toEqual([16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 235, 235, 16, 16, 235, 235]);
  });

  it('crossfades byte by byte', () => {
    const target = Buffer.alloc(3);
    crossfade(target, Buffer.from([0, 100, 200]), Buffer.from([200, 100, 0]), 0.5);
    expect([...target]).toEqual([100, 100, 100]);
    crossfade(target, Buffer.from([0, 100, 200]), Buffer.from([200, 100, 0]), 1);
    expect([...target]).toEqual([200, 100, 0]);
  });
});
