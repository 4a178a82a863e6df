/**
 * Text on a Surface with the built-in bitmap font: wrapping, fitting a block into a box, drawing.
 * A glyph at scale s is (5 x 7) * s pixels above the baseline; a line is 10 rows: 7, 2 for
 * descenders and 1 of spacing.
 */
import { DESCENDER_HEIGHT, GLYPH_HEIGHT, GLYPH_WIDTH, glyphRows, toDrawable } from './bitmap-font';
import type { Rgb, Surface } from './surface';

const CELL_WIDTH = GLYPH_WIDTH + 1;
const LINE_HEIGHT = GLYPH_HEIGHT + DESCENDER_HEIGHT + 1;
const ELLIPSIS = '...';

export interface TextBlock {
  lines: string[];
  scale: number;
}

export function textWidth(text: string, scale: number): number {
  return Math.max(0, [...text].length * CELL_WIDTH - 1) * scale;
}

export function lineHeight(scale: number): number {
  return LINE_HEIGHT * scale;
}

/** Draws one line with its top-left corner at (x, y); no wrapping. */
export function drawText(surface: Surface, text: string, x: number, y: number, scale: number, color: Rgb): void {
  let left = x;
  for (const char of text) {
    const rows = glyphRows(char);
    for (let row = 0; row < rows.length; row++) {
      const bits = rows[row] as number;
      if (bits === 0) continue;
      // Runs of lit pixels become one rectangle each: fewer fills than pixel by pixel.
      let col = 0;
      while (col < GLYPH_WIDTH) {
        if (!isLit(bits, col)) {
          col++;
          continue;
        }
        const start = col;
        while (col < GLYPH_WIDTH && isLit(bits, col)) col++;
        surface.fillRect(left + start * scale, y + row * scale, (col - start) * scale, scale, color);
      }
    }
    left += CELL_WIDTH * scale;
  }
}

/**
 * The largest scale (up to maxScale) at which the wrapped text fits in boxWidth x boxHeight.
 * If it does not fit even at scale 1, the lines that fit are kept and the last ends in '...'.
 */
export function fitText(text: string, boxWidth: number, boxHeight: number, maxScale: number): TextBlock {
  const clean = normalize(text);
  for (let scale = Math.max(1, Math.floor(maxScale)); scale >= 1; scale--) {
    const columns = Math.floor((boxWidth / scale + 1) / CELL_WIDTH);
    const rows = Math.floor((boxHeight / scale + 1) / LINE_HEIGHT);
    if (columns < 1 || rows < 1) continue;
    const lines = wrap(clean, columns);
    if (lines.length <= rows) return { lines, scale };
    if (scale === 1) return { lines: truncate(lines, rows, columns), scale };
  }
  return { lines: [], scale: 1 };
}

/** Draws a block of lines, each centred horizontally on centreX, starting at top. */
export function drawCentredBlock(
  surface: Surface,
  block: TextBlock,
  centreX: number,
  top: number,
  color: Rgb,
  shadow?: Rgb,
): void {
  const { scale } = block;
  block.lines.forEach((line, index) => {
    const x = Math.round(centreX - textWidth(line, scale) / 2);
    const y = top + index * lineHeight(scale);
    if (shadow) drawText(surface, line, x + Math.ceil(scale / 2), y + Math.ceil(scale / 2), scale, shadow);
    drawText(surface, line, x, y, scale, color);
  });
}

export function blockHeight(block: TextBlock): number {
  return block.lines.length === 0 ? 0 : block.lines.length * lineHeight(block.scale) - block.scale;
}

/** Greedy word wrap; words longer than a line are split. */
export function wrap(text: string, columns: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ').filter(Boolean)) {
    for (const piece of chunk(word, columns)) {
      if (line.length === 0) line = piece;
      else if (line.length + 1 + piece.length <= columns) line += ` ${piece}`;
      else {
        lines.push(line);
        line = piece;
      }
    }
  }
  if (line.length > 0) lines.push(line);
  return lines;
}

/** Whitespace collapsed to single spaces; characters the font lacks become '?'. */
function normalize(text: string): string {
  return toDrawable(text.replace(/\s+/gu, ' ').trim());
}

function chunk(word: string, size: number): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < word.length; i += size) pieces.push(word.slice(i, i + size));
  return pieces;
}

function truncate(lines: string[], rows: number, columns: number): string[] {
  const kept = lines.slice(0, rows);
  const last = kept.length - 1;
  const room = Math.max(0, columns - ELLIPSIS.length);
  kept[last] = `${(kept[last] ?? '').slice(0, room)}${ELLIPSIS}`.slice(0, columns);
  return kept;
}

function isLit(bits: number, col: number): boolean {
  return ((bits >> (GLYPH_WIDTH - 1 - col)) & 1) === 1;
}
