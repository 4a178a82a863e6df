/**
 * Planar YUV 4:2:0 frames (BT.709, limited range): the format x264 encodes. Drawing video
 * frames in it directly halves the bytes piped to ffmpeg and skips its RGB conversion, which
 * otherwise costs more than the encoding itself. Width and height must be even.
 */
import type { Raster } from './raster';
import { clipRect, mixByte, type Rgb, type Surface } from './surface';

export interface Yuv420Frame {
  readonly width: number;
  readonly height: number;
  /** The Y plane (width * height), then U and V (each width/2 * height/2). */
  readonly data: Buffer;
}

/** Tags that tell players how to read these frames; passed to ffmpeg as output options. */
export const YUV420_COLOR_ARGS = ['-colorspace', 'bt709', '-color_primaries', 'bt709', '-color_trc', 'bt709', '-color_range', 'tv'];

export function toYuv(color: Rgb): [y: number, u: number, v: number] {
  const [r, g, b] = color;
  return [
    clampByte(16 + (219 / 255) * (0.2126 * r + 0.7152 * g + 0.0722 * b)),
    clampByte(128 + (224 / 255) * (-0.114572 * r - 0.385428 * g + 0.5 * b)),
    clampByte(128 + (224 / 255) * (0.5 * r - 0.454153 * g - 0.045847 * b)),
  ];
}

/**
 * Converts an RGB raster; each chroma sample is the average of its 2x2 block. Written out
 * inline because it touches every pixel. Results stay within 16..241, so the +0.5 and the
 * byte store's truncation round correctly without clamping.
 */
export function toYuv420(raster: Raster): Yuv420Frame {
  const { width, height, data: rgb } = raster;
  const frame = { width, height, data: Buffer.allocUnsafe((width * height * 3) / 2) };
  const out = frame.data;
  const uOffset = width * height;
  const vOffset = uOffset + (width / 2) * (height / 2);
  const ky = 219 / 255;
  for (let i = 0, p = 0; i < uOffset; i++, p += 3) {
    out[i] = 16.5 + ky * (0.2126 * (rgb[p] as number) + 0.7152 * (rgb[p + 1] as number) + 0.0722 * (rgb[p + 2] as number));
  }
  // Sums of four pixels, so the 1/4 of the average folds into the coefficients.
  const kc = 224 / 255 / 4;
  const rowBytes = width * 3;
  let c = 0;
  for (let cy = 0; cy < height; cy += 2) {
    for (let top = cy * rowBytes, end = top + rowBytes; top < end; top += 6) {
      const bottom = top + rowBytes;
      const r = (rgb[top] as number) + (rgb[top + 3] as number) + (rgb[bottom] as number) + (rgb[bottom + 3] as number);
      const g = (rgb[top + 1] as number) + (rgb[top + 4] as number) + (rgb[bottom + 1] as number) + (rgb[bottom + 4] as number);
      const b = (rgb[top + 2] as number) + (rgb[top + 5] as number) + (rgb[bottom + 2] as number) + (rgb[bottom + 5] as number);
      out[uOffset + c] = 128.5 + kc * (-0.114572 * r - 0.385428 * g + 0.5 * b);
      out[vOffset + c] = 128.5 + kc * (0.5 * r - 0.454153 * g - 0.045847 * b);
      c++;
    }
  }
  return frame;
}

/** The frame as a Surface. Chroma is shared by 2x2 pixels, so odd edges tint their neighbour. */
export function yuv420Surface(frame: Yuv420Frame): Surface {
  const { width, height, data } = frame;
  const chromaWidth = width / 2;
  const uOffset = width * height;
  const vOffset = uOffset + chromaWidth * (height / 2);

  const paint = (x: number, y: number, w: number, h: number, color: Rgb, alpha: number) => {
    const clip = clipRect(width, height, x, y, w, h);
    if (!clip) return;
    const [yy, u, v] = toYuv(color);
    for (let row = clip.y0; row < clip.y1; row++) {
      const start = row * width;
      if (alpha >= 1) data.fill(yy, start + clip.x0, start + clip.x1);
      else for (let i = start + clip.x0; i < start + clip.x1; i++) data[i] = mixByte(data[i] as number, yy, alpha);
    }
    const cx0 = clip.x0 >> 1;
    const cx1 = (clip.x1 + 1) >> 1;
    for (let row = clip.y0 >> 1; row < (clip.y1 + 1) >> 1; row++) {
      const start = row * chromaWidth;
      if (alpha >= 1) {
        data.fill(u, uOffset + start + cx0, uOffset + start + cx1);
        data.fill(v, vOffset + start + cx0, vOffset + start + cx1);
      } else {
        for (let i = start + cx0; i < start + cx1; i++) {
          data[uOffset + i] = mixByte(data[uOffset + i] as number, u, alpha);
          data[vOffset + i] = mixByte(data[vOffset + i] as number, v, alpha);
        }
      }
    }
  };

  return {
    width,
    height,
    fillRect: (x, y, w, h, color) => paint(x, y, w, h, color, 1),
    blendRect: paint,
  };
}

/**
 * target = from * (1 - t) + to * t, byte by byte. Valid for YUV as for RGB because the
 * conversion between them is affine.
 */
export function crossfade(target: Buffer, from: Buffer, to: Buffer, t: number): void {
  const weight = Math.round(Math.min(1, Math.max(0, t)) * 256);
  for (let i = 0; i < target.length; i++) {
    const a = from[i] as number;
    target[i] = a + ((((to[i] as number) - a) * weight) >> 8);
  }
}

function clampByte(value: number): number {
  return Math.min(255, Math.max(0, Math.round(value)));
}
