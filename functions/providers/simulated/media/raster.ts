/**
 * A minimal RGB24 canvas: the raw layout sharp reads and writes, so images go to the encoders
 * without conversion. Every drawing call clips to the canvas.
 */
import { clipRect, mixByte, type Rgb, type Surface } from './surface';

export interface Raster {
  readonly width: number;
  readonly height: number;
  /** width * height * 3 bytes, rows top to bottom. */
  readonly data: Buffer;
}

export function createRaster(width: number, height: number, fill: Rgb = [0, 0, 0]): Raster {
  const raster = { width, height, data: Buffer.allocUnsafe(width * height * 3) };
  fillRect(raster, 0, 0, width, height, fill);
  return raster;
}

/** The raster as a Surface, for text and other shared drawing code. */
export function rasterSurface(raster: Raster): Surface {
  return {
    width: raster.width,
    height: raster.height,
    fillRect: (x, y, w, h, color) => fillRect(raster, x, y, w, h, color),
    blendRect: (x, y, w, h, color, alpha) => blendRect(raster, x, y, w, h, color, alpha),
  };
}

/** Buffer.fill with a 3-byte pattern runs in native code. */
export function fillRect(raster: Raster, x: number, y: number, w: number, h: number, color: Rgb): void {
  const clip = clipRect(raster.width, raster.height, x, y, w, h);
  if (!clip) return;
  const pattern = Buffer.from(color);
  for (let row = clip.y0; row < clip.y1; row++) {
    const start = (row * raster.width + clip.x0) * 3;
    raster.data.fill(pattern, start, start + (clip.x1 - clip.x0) * 3);
  }
}

export function blendRect(raster: Raster, x: number, y: number, w: number, h: number, color: Rgb, alpha: number): void {
  const clip = clipRect(raster.width, raster.height, x, y, w, h);
  if (!clip) return;
  const { data } = raster;
  for (let row = clip.y0; row < clip.y1; row++) {
    const end = (row * raster.width + clip.x1) * 3;
    for (let i = (row * raster.width + clip.x0) * 3; i < end; i += 3) {
      data[i] = mixByte(data[i] as number, color[0], alpha);
      data[i + 1] = mixByte(data[i + 1] as number, color[1], alpha);
      data[i + 2] = mixByte(data[i + 2] as number, color[2], alpha);
    }
  }
}

/** Disc painted over what is there with the given opacity (0..1). */
export function blendCircle(raster: Raster, cx: number, cy: number, radius: number, color: Rgb, alpha: number): void {
  const y0 = Math.max(0, Math.floor(cy - radius));
  const y1 = Math.min(raster.height, Math.ceil(cy + radius));
  for (let y = y0; y < y1; y++) {
    const dy = y + 0.5 - cy;
    const half = Math.sqrt(Math.max(0, radius * radius - dy * dy));
    const x0 = Math.round(cx - half);
    blendRect(raster, x0, y, Math.round(cx + half) - x0, 1, color, alpha);
  }
}

/** Top-to-bottom linear gradient over the whole canvas. */
export function fillVerticalGradient(raster: Raster, top: Rgb, bottom: Rgb): void {
  for (let y = 0; y < raster.height; y++) {
    const t = raster.height > 1 ? y / (raster.height - 1) : 0;
    const color: Rgb = [mixByte(top[0], bottom[0], t), mixByte(top[1], bottom[1], t), mixByte(top[2], bottom[2], t)];
    fillRect(raster, 0, y, raster.width, 1, color);
  }
}

/** Copies `source` onto `target` with its top-left corner at (x, y). */
export function blit(target: Raster, source: Raster, x: number, y: number): void {
  const clip = clipRect(target.width, target.height, x, y, source.width, source.height);
  if (!clip) return;
  const rowBytes = (clip.x1 - clip.x0) * 3;
  for (let row = clip.y0; row < clip.y1; row++) {
    const from = ((row - y) * source.width + (clip.x0 - x)) * 3;
    source.data.copy(target.data, (row * target.width + clip.x0) * 3, from, from + rowBytes);
  }
}
