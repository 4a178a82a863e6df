/**
 * The picture the simulated provider "generates" for a prompt: a gradient with a few soft
 * shapes in the prompt's colours and the prompt itself written across the middle. Shared by
 * images and by the static background of video frames.
 */
import { paletteFor, INK, WHITE, type Palette } from './palette';
import { blendCircle, fillVerticalGradient, rasterSurface, type Raster } from './raster';
import type { Rgb, Surface } from './surface';
import { blockHeight, drawCentredBlock, drawText, fitText, textWidth } from './text';

const LABEL = 'SIMULATED';

export interface PromptTextOptions {
  /** A translucent dark band behind the text, so it stays legible over arbitrary pictures. */
  panel: boolean;
  /** What the output should not show: written under the prompt, after "NOT:". */
  negativePrompt?: string;
}

export function drawPromptCard(raster: Raster, prompt: string, palette: Palette = paletteFor(prompt), negativePrompt?: string): void {
  drawBackdrop(raster, palette);
  drawPromptText(raster, prompt, { panel: false, ...(negativePrompt !== undefined && { negativePrompt }) });
}

/** Gradient plus three translucent discs placed by the prompt hash. */
export function drawBackdrop(raster: Raster, palette: Palette): void {
  const { width, height } = raster;
  fillVerticalGradient(raster, palette.top, palette.bottom);
  const unit = Math.min(width, height);
  for (let i = 0; i < 3; i++) {
    const byte = (n: number) => (palette.seed[2 + i * 3 + n] as number) / 255;
    blendCircle(raster, byte(0) * width, byte(1) * height, unit * (0.15 + 0.25 * byte(2)), palette.accent, 0.18);
  }
}

/**
 * The prompt, wrapped and centred, the negative prompt (if any) in a smaller block below it, and
 * a small label in the top-right corner.
 */
export function drawPromptText(raster: Raster, prompt: string, options: PromptTextOptions): void {
  const surface = rasterSurface(raster);
  const { width, height } = raster;
  const block = fitText(prompt, width * 0.84, height * 0.5, Math.min(width, height) / 80);
  const top = Math.round(height * 0.42 - blockHeight(block) / 2);
  if (options.panel && block.lines.length > 0) {
    const pad = 3 * block.scale;
    surface.blendRect(0, top - pad, width, blockHeight(block) + 2 * pad, INK, 0.55);
  }
  drawCentredBlock(surface, block, width / 2, top, WHITE, INK);
  if (options.negativePrompt !== undefined) drawNegativePrompt(raster, options.negativePrompt, options.panel);
  const scale = tagScale(surface);
  drawTag(surface, LABEL, width - 4 * scale - textWidth(LABEL, scale), 4 * scale, scale);
}

/** Scale for corner tags: about 1/270 of the short edge, so 4 at 1080p. */
export function tagScale(surface: Surface): number {
  return Math.max(1, Math.round(Math.min(surface.width, surface.height) / 270));
}

/** One line of white text on a translucent dark box; (x, y) is the text's top-left corner. */
export function drawTag(surface: Surface, text: string, x: number, y: number, scale: number): void {
  surface.blendRect(x - 2 * scale, y - 2 * scale, textWidth(text, scale) + 4 * scale, 11 * scale, INK, 0.6);
  drawText(surface, text, x, y, scale, WHITE);
}

/** The negative prompt in the band between the prompt and the bottom, in a muted colour. */
function drawNegativePrompt(raster: Raster, negativePrompt: string, panel: boolean): void {
  const surface = rasterSurface(raster);
  const { width, height } = raster;
  const block = fitText(`NOT: ${negativePrompt}`, width * 0.84, height * 0.14, Math.min(width, height) / 160);
  const top = Math.round(height * 0.68);
  if (panel && block.lines.length > 0) {
    const pad = 3 * block.scale;
    surface.blendRect(0, top - pad, width, blockHeight(block) + 2 * pad, INK, 0.55);
  }
  drawCentredBlock(surface, block, width / 2, top, NEGATIVE_INK, INK);
}

/** A pale red: the words of what should be left out. */
const NEGATIVE_INK: Rgb = [255, 196, 196];
