/**
 * Colours derived from a hash of the prompt and the seed: the same prompt and seed always give
 * the same picture, different prompts or seeds visibly differ. Without a seed, the prompt alone
 * decides. Saturation and lightness stay moderate so white text reads.
 */
import { createHash } from 'node:crypto';
import type { Rgb } from './surface';

export interface Palette {
  top: Rgb;
  bottom: Rgb;
  accent: Rgb;
  /** Hash bytes for every other choice (shape positions): the simulated provider's only randomness. */
  seed: Buffer;
}

export const WHITE: Rgb = [255, 255, 255];
export const INK: Rgb = [16, 16, 24];

export function paletteFor(prompt: string, seed?: number): Palette {
  const hash = createHash('sha256').update(prompt);
  if (seed !== undefined) hash.update(`\u0000seed:${seed}`);
  const bytes = hash.digest();
  return paletteOf(bytes);
}

function paletteOf(seed: Buffer): Palette {
  const hue = ((seed[0] as number) / 256) * 360;
  const shift = 30 + ((seed[1] as number) % 90);
  return {
    top: hslToRgb(hue, 0.55, 0.42),
    bottom: hslToRgb((hue + shift) % 360, 0.6, 0.2),
    accent: hslToRgb((hue + 180) % 360, 0.85, 0.6),
    seed,
  };
}

function hslToRgb(hue: number, saturation: number, lightness: number): Rgb {
  const chroma = (1 - Math.abs(2 * lightness - 1)) * saturation;
  const x = chroma * (1 - Math.abs(((hue / 60) % 2) - 1));
  const m = lightness - chroma / 2;
  const [r, g, b] =
    hue < 60 ? [chroma, x, 0]
    : hue < 120 ? [x, chroma, 0]
    : hue < 180 ? [0, chroma, x]
    : hue < 240 ? [0, x, chroma]
    : hue < 300 ? [x, 0, chroma]
    : [chroma, 0, x];
  return [Math.round((r + m) * 255), Math.round((g + m) * 255), Math.round((b + m) * 255)];
}
