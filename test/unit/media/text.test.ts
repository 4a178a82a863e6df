import { GLYPH_HEIGHT, GLYPH_WIDTH, glyphRows, toDrawable } from '#providers/simulated/media/bitmap-font';
import { createRaster, rasterSurface } from '#providers/simulated/media/raster';
import { drawText, fitText, textWidth, wrap } from '#providers/simulated/media/text';

describe('bitmap font', () => {
  const printable = Array.from({ length: 0x7e - 0x20 + 1 }, (_, i) => String.fromCharCode(0x20 + i));

  it('has a glyph for every printable ASCII character', () => {
    const question = glyphRows('?');
    for (const char of printable) {
      const rows = glyphRows(char);
      expect([GLYPH_HEIGHT, GLYPH_HEIGHT + 2]).toContain(rows.length);
      for (const row of rows) expect(row).toBeLessThan(1 << GLYPH_WIDTH);
      if (char !== '?' && char !== ' ') expect(rows).not.toEqual(question);
    }
  });

  it('draws characters it lacks as ?', () => {
    expect(toDrawable('café ☕\t!')).toBe('caf? ??!');
  });
});

describe('text layout', () => {
  it('wraps on spaces and splits words longer than a line', () => {
    expect(wrap('the quick brown fox', 10)).toEqual(['the quick', 'brown fox']);
    expect(wrap('abcdefghijkl xy', 5)).toEqual(['abcde', 'fghij', 'kl xy']);
  });

  it('picks the largest scale that fits the box', () => {
    const block = fitText('hello world', 200, 100, 10);

    expect(block.lines.length).toBeGreaterThan(0);
    for (const line of block.lines) expect(textWidth(line, block.scale)).toBeLessThanOrEqual(200);
    const bigger = fitText('hello world', 200, 100, block.scale + 1);
    expect(bigger.scale).toBe(block.scale);
  });

  it('truncates with an ellipsis when even scale 1 is too big', () => {
    const block = fitText('word '.repeat(500), 60, 20, 4);

    expect(block.scale).toBe(1);
    expect(block.lines).toHaveLength(2);
    expect(block.lines.at(-1)?.endsWith('...')).toBe(true);
  });

  it('lights exactly the glyph pixels, scaled', () => {
    const raster = createRaster(20, 20);
    drawText(rasterSurface(raster), '|', 0, 0, 2, [255, 255, 255]);

    let lit = 0;
    for (let i = 0; i < raster.data.length; i += 3) if (raster.data[i] === 255) lit++;
    // '|' is one column by seven rows: 7 pixels, 4 each at scale 2.
    expect(lit).toBe(28);
  });
});
