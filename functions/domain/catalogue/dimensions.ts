/**
 * Output pixel sizes for the resolutions and aspect ratios the API accepts. Pure: no I/O.
 */
import type { ImageAspectRatio, ImageResolution, VideoAspectRatio, VideoResolution } from './catalogue';

export interface Dimensions {
  width: number;
  height: number;
}

// The allowed values themselves live in the catalogue; re-exported for the renderers' tests.
export {
  IMAGE_ASPECT_RATIOS,
  IMAGE_RESOLUTIONS,
  VIDEO_ASPECT_RATIOS,
  VIDEO_RESOLUTIONS,
  type ImageAspectRatio,
  type ImageResolution,
  type VideoAspectRatio,
  type VideoResolution,
} from './catalogue';

const VIDEO_SHORT_EDGE: Record<VideoResolution, number> = { '480p': 480, '720p': 720, '1080p': 1080 };
const IMAGE_LONG_EDGE: Record<ImageResolution, number> = { '1k': 1024, '2k': 2048, '4k': 4096 };

/**
 * Video frame size: the short edge is the resolution's number (720p 16:9 = 1280x720,
 * 9:16 = 720x1280). Both edges are even because H.264 in yuv420p needs them to be.
 */
export function videoDimensions(resolution: VideoResolution, aspectRatio: VideoAspectRatio): Dimensions {
  const short = VIDEO_SHORT_EDGE[resolution];
  const { w, h } = parseRatio(aspectRatio);
  const long = short * (Math.max(w, h) / Math.min(w, h));
  return orient(w, h, roundToEven(long), roundToEven(short));
}

/** Image size: the long edge is 1024, 2048 or 4096 and the short edge follows the ratio (2k 16:9 = 2048x1152). */
export function imageDimensions(resolution: ImageResolution, aspectRatio: ImageAspectRatio): Dimensions {
  const long = IMAGE_LONG_EDGE[resolution];
  const { w, h } = parseRatio(aspectRatio);
  const short = Math.round(long * (Math.min(w, h) / Math.max(w, h)));
  return orient(w, h, long, short);
}

function parseRatio(aspectRatio: string): { w: number; h: number } {
  const [w, h] = aspectRatio.split(':').map(Number);
  if (!w || !h) throw new Error(`Malformed aspect ratio: ${aspectRatio}`);
  return { w, h };
}

/** Landscape and square ratios put the long edge across; portrait ones put it down. */
function orient(w: number, h: number, long: number, short: number): Dimensions {
  return w >= h ? { width: long, height: short } : { width: short, height: long };
}

function roundToEven(value: number): number {
  return Math.round(value / 2) * 2;
}
