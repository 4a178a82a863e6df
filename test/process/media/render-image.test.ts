import sharp from 'sharp';
import { MediaInputError } from '#providers/simulated/media/image-input';
import { renderImage } from '#providers/simulated/media/render-image';

const PROMPT = 'A glass teapot on a wooden table, morning light';
const GREEN = { r: 0, g: 255, b: 0 };
const BLUE = { r: 0, g: 0, b: 255 };

function solid(colour: { r: number; g: number; b: number }, width = 48, height = 32) {
  return sharp({ create: { width, height, channels: 3, background: colour } });
}

/** Share of the image's pixels within `tolerance` of `colour` on every channel. */
async function shareOf(image: Buffer, colour: { r: number; g: number; b: number }, tolerance = 30): Promise<number> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let matches = 0;
  for (let i = 0; i < data.length; i += info.channels) {
    if (
      Math.abs((data[i] as number) - colour.r) <= tolerance &&
      Math.abs((data[i + 1] as number) - colour.g) <= tolerance &&
      Math.abs((data[i + 2] as number) - colour.b) <= tolerance
    ) {
      matches++;
    }
  }
  return matches / (info.width * info.height);
}

describe('renderImage', () => {
  it.each([
    ['png', 'png', 1024, 1024],
    ['jpg', 'jpeg', 683, 1024],
    ['webp', 'webp', 2048, 878],
  ] as const)('writes %s, read back as %s, at exactly %ix%i', async (format, decodedAs, width, height) => {
    const image = await renderImage({ prompt: PROMPT, width, height, format });
    const meta = await sharp(image).metadata();

    expect(meta.format).toBe(decodedAs);
    expect({ width: meta.width, height: meta.height }).toEqual({ width, height });
  });

  it('draws something that depends on the prompt', async () => {
    const render = (prompt: string) => renderImage({ prompt, width: 256, height: 144, format: 'png' });
    const [a, again, b] = await Promise.all([render('a red fox'), render('a red fox'), render('a blue whale')]);

    expect(a.equals(again)).toBe(true);
    expect(a.equals(b)).toBe(false);
    const stats = await sharp(a).stats();
    // Not a flat fill: text and shapes make the channels vary.
    expect(stats.channels[0]?.stdev).toBeGreaterThan(5);
  });

  it('gives identical bytes for the same seed; another seed or a negative prompt changes the picture', async () => {
    const render = (extra: { seed?: number; negativePrompt?: string }) => renderImage({ prompt: PROMPT, width: 256, height: 144, format: 'png', ...extra });
    const [a, again, otherSeed, unseeded, negative] = await Promise.all([
      render({ seed: 42 }),
      render({ seed: 42 }),
      render({ seed: 43 }),
      render({}),
      render({ seed: 42, negativePrompt: 'people, text' }),
    ]);

    expect(again.equals(a)).toBe(true);
    expect(otherSeed.equals(a)).toBe(false);
    expect(unseeded.equals(a)).toBe(false);
    expect(negative.equals(a)).toBe(false);
  });

  it('without references, does not contain the reference colour', async () => {
    const image = await renderImage({ prompt: PROMPT, width: 400, height: 300, format: 'png' });

    expect(await shareOf(image, GREEN)).toBe(0);
  });

  it('edit mode shows the reference image', async () => {
    const reference = await solid(GREEN).png().toBuffer();

    const image = await renderImage({ prompt: PROMPT, width: 400, height: 300, format: 'png', references: [reference] });
    const meta = await sharp(image).metadata();

    expect({ width: meta.width, height: meta.height }).toEqual({ width: 400, height: 300 });
    expect(await shareOf(image, GREEN)).toBeGreaterThan(0.5);
  });

  it('edit mode uses every reference, whatever its format', async () => {
    const references = [await solid(GREEN).webp().toBuffer(), await solid(BLUE, 20, 90).jpeg().toBuffer()];

    const image = await renderImage({ prompt: PROMPT, width: 640, height: 360, format: 'webp', references });

    expect(await shareOf(image, GREEN)).toBeGreaterThan(0.25);
    expect(await shareOf(image, BLUE)).toBeGreaterThan(0.25);
  });

  it('rejects a reference that is not an image', async () => {
    await expect(
      renderImage({ prompt: PROMPT, width: 64, height: 64, format: 'png', references: [Buffer.from('GIF? no')] }),
    ).rejects.toThrow(MediaInputError);
  });

  it('rejects an impossible size', async () => {
    await expect(renderImage({ prompt: PROMPT, width: 0, height: 64, format: 'png' })).rejects.toThrow(RangeError);
  });
});
