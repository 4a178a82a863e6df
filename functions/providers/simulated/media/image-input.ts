/**
 * Decoding caller-supplied images (a video's first frame, edit-mode references) into Rasters.
 * sharp (libvips, prebuilt per platform on npm) reads JPEG, PNG and WebP.
 */
import sharp from 'sharp';
import { MAX_IMAGE_SIDE } from '#domain/catalogue/image-size';
import type { Raster } from './raster';
import type { Rgb } from './surface';

import { MediaInputError } from './errors';

export { MediaInputError };

export type Fit = 'contain' | 'cover';

/**
 * The image scaled to exactly width x height: 'contain' letterboxes with `background`, 'cover'
 * crops. EXIF orientation is applied, transparency is flattened onto `background`, and grey or
 * CMYK input comes out as sRGB so there are always three channels.
 */
export async function decodeToRaster(
  input: Buffer,
  width: number,
  height: number,
  fit: Fit,
  background: Rgb,
): Promise<Raster> {
  const colour = { r: background[0], g: background[1], b: background[2] };
  try {
    // A second guard behind the header checks: never decode more pixels than they allow.
    const { data, info } = await sharp(input, { limitInputPixels: MAX_IMAGE_SIDE * MAX_IMAGE_SIDE })
      .autoOrient()
      .resize(width, height, { fit, background: colour })
      .flatten({ background: colour })
      .toColourspace('srgb')
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 3 || info.width !== width || info.height !== height) {
      throw new Error(`unexpected decode result ${info.width}x${info.height}x${info.channels}`);
    }
    return { width, height, data };
  } catch (error) {
    throw new MediaInputError(`Could not read the supplied image: ${(error as Error).message}`);
  }
}
