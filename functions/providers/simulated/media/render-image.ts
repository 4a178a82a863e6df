/**
 * A real PNG, JPEG or WebP for the simulated provider, at exactly the requested size. Without
 * references it is the prompt card; in edit mode the references are tiled as the background,
 * so the output visibly derives from them, with the prompt written over a translucent band.
 */
import sharp from 'sharp';
import { decodeToRaster } from './image-input';
import { paletteFor } from './palette';
import { drawPromptCard, drawPromptText } from './prompt-card';
import { blit, createRaster, type Raster } from './raster';

export type ImageFormat = 'png' | 'jpg' | 'webp';

export interface RenderImageOptions {
  prompt: string;
  width: number;
  height: number;
  format: ImageFormat;
  /** Edit mode: JPEG, PNG or WebP images to build on. */
  references?: Buffer[];
  /** Decides the colours and shapes (with the prompt): the same seed gives the same bytes. */
  seed?: number;
  /** Written on the card under the prompt. */
  negativePrompt?: string;
}

const MAX_EDGE = 8192;

/** Throws RangeError for an impossible size and MediaInputError for an unreadable reference. */
export async function renderImage(options: RenderImageOptions): Promise<Buffer> {
  const { prompt, width, height, format } = options;
  for (const [name, value] of [['width', width], ['height', height]] as const) {
    if (!Number.isInteger(value) || value < 1 || value > MAX_EDGE) {
      throw new RangeError(`${name} must be an integer from 1 to ${MAX_EDGE}, got ${value}`);
    }
  }

  const palette = paletteFor(prompt, options.seed);
  const canvas = createRaster(width, height, palette.bottom);
  const references = options.references ?? [];
  const { negativePrompt } = options;
  if (references.length > 0) {
    await tileReferences(canvas, references);
    drawPromptText(canvas, prompt, { panel: true, ...(negativePrompt !== undefined && { negativePrompt }) });
  } else {
    drawPromptCard(canvas, prompt, palette, negativePrompt);
  }
  return encode(canvas, format);
}

/** Splits the canvas into a near-square grid, one cell per reference, each cropped to fill it. */
async function tileReferences(canvas: Raster, references: Buffer[]): Promise<void> {
  const columns = Math.ceil(Math.sqrt(references.length));
  const rows = Math.ceil(references.length / columns);
  await Promise.all(
    references.map(async (reference, index) => {
      const column = index % columns;
      const row = Math.floor(index / columns);
      // The last reference stretches across any empty cells left in its row.
      const lastColumn = index === references.length - 1 ? columns : column + 1;
      const x0 = Math.round((column * canvas.width) / columns);
      const x1 = Math.round((lastColumn * canvas.width) / columns);
      const y0 = Math.round((row * canvas.height) / rows);
      const y1 = Math.round(((row + 1) * canvas.height) / rows);
      if (x1 <= x0 || y1 <= y0) return;
      const tile = await decodeToRaster(reference, x1 - x0, y1 - y0, 'cover', [0, 0, 0]);
      blit(canvas, tile, x0, y0);
    }),
  );
}

/** Encoder settings lean to speed: these are placeholders, not photographs. */
function encode(canvas: Raster, format: ImageFormat): Promise<Buffer> {
  const image = sharp(canvas.data, { raw: { width: canvas.width, height: canvas.height, channels: 3 } });
  switch (format) {
    case 'png':
      return image.png({ compressionLevel: 6 }).toBuffer();
    case 'jpg':
      return image.jpeg({ quality: 85 }).toBuffer();
    case 'webp':
      return image.webp({ quality: 85, effort: 2 }).toBuffer();
  }
}
