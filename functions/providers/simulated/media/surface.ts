/**
 * What text and shapes are drawn on. Two implementations: RGB24 rasters (images, and the
 * static layers of a video) and YUV 4:2:0 frames (the per-frame overlays of a video, drawn
 * straight into what x264 consumes so ffmpeg never converts colour).
 */

export type Rgb = readonly [r: number, g: number, b: number];

export interface Surface {
  readonly width: number;
  readonly height: number;
  /** Opaque rectangle, clipped to the surface. */
  fillRect(x: number, y: number, w: number, h: number, color: Rgb): void;
  /** Rectangle painted over what is there with the given opacity (0..1), clipped to the surface. */
  blendRect(x: number, y: number, w: number, h: number, color: Rgb, alpha: number): void;
}

export interface Rect {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** The part of the rectangle inside a width x height surface, in whole pixels; undefined if none. */
export function clipRect(width: number, height: number, x: number, y: number, w: number, h: number): Rect | undefined {
  const x0 = Math.max(0, Math.round(x));
  const y0 = Math.max(0, Math.round(y));
  const x1 = Math.min(width, Math.round(x + w));
  const y1 = Math.min(height, Math.round(y + h));
  return x1 > x0 && y1 > y0 ? { x0, y0, x1, y1 } : undefined;
}

export function mixByte(from: number, to: number, t: number): number {
  return Math.round(from + (to - from) * t);
}
