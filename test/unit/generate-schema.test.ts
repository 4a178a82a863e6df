import { ZodError } from 'zod';
import { parseGenerateVideo } from '#contract/generate-video';
import { describeZodError } from '#http/error-mapping';

function problem(body: unknown): string {
  try {
    parseGenerateVideo(body);
  } catch (error) {
    if (error instanceof ZodError) return describeZodError(error);
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(body)} to be refused`);
}

describe('POST /generate validation', () => {
  it('applies every default', () => {
    expect(parseGenerateVideo({ prompt: '  a cat  ' })).toEqual({
      model: 'vid-1-5-pro',
      generationType: 'text_to_video',
      prompt: 'a cat',
      aspectRatio: '16:9',
      duration: 5,
      resolution: '720p',
    });
  });

  it('accepts every allowed value and ignores unknown fields', () => {
    expect(
      parseGenerateVideo({
        prompt: 'x',
        model: 'vid-2-0-fast',
        generation_type: 'image_to_video',
        image_url: 'https://example.com/a.png',
        aspect_ratio: '21:9',
        duration: 12,
        resolution: '1080p',
        colour: 'blue',
      }),
    ).toMatchObject({ model: 'vid-2-0-fast', imageUrl: 'https://example.com/a.png', duration: 12 });
    expect(parseGenerateVideo({ prompt: 'x', duration: 5.0 }).duration).toBe(5);
    expect(parseGenerateVideo({ prompt: 'x'.repeat(5000) }).prompt).toHaveLength(5000);
  });

  it.each([
    [{}, /^prompt: is required$/],
    [{ prompt: 42 }, /^prompt: must be a string$/],
    [{ prompt: '   ' }, /^prompt: must not be empty$/],
    [{ prompt: 'x'.repeat(5001) }, /^prompt: must be at most 5000 characters$/],
    [{ prompt: 'x', model: 'image-2' }, /^model: must be one of vid-1-5-pro, vid-2-0, vid-2-0-fast$/],
    [{ prompt: 'x', model: 'sora' }, /^model: must be one of/],
    [{ prompt: 'x', generation_type: 'video_to_video' }, /^generation_type: must be one of text_to_video, image_to_video$/],
    [{ prompt: 'x', generation_type: 'image_to_video' }, /^image_url: is required when generation_type is image_to_video$/],
    [{ prompt: 'x', image_url: 'https://example.com/a.png' }, /^image_url: is only allowed when generation_type is image_to_video$/],
    [{ prompt: 'x', generation_type: 'image_to_video', image_url: 'ftp://example.com/a.png' }, /^image_url: must be an absolute http\(s\) URL$/],
    [{ prompt: 'x', generation_type: 'image_to_video', image_url: '/relative.png' }, /^image_url: must be an absolute http\(s\) URL$/],
    [{ prompt: 'x', aspect_ratio: '2:1' }, /^aspect_ratio: must be one of 16:9, 9:16, 1:1, 4:3, 3:4, 21:9$/],
    [{ prompt: 'x', resolution: '4k' }, /^resolution: must be one of 480p, 720p, 1080p$/],
    [{ prompt: 'x', duration: 5.5 }, /^duration: must be a whole number of seconds from 3 to 12$/],
    [{ prompt: 'x', duration: '5' }, /^duration: must be a whole number of seconds from 3 to 12$/],
    [{ prompt: 'x', duration: 2 }, /^duration: must be at least 3 seconds$/],
    [{ prompt: 'x', duration: 13 }, /^duration: must be at most 12 seconds$/],
    [{ prompt: 'x', duration: null }, /^duration: /],
    [[], /^body: must be a JSON object$/],
    ['prompt', /^body: must be a JSON object$/],
    [null, /^body: must be a JSON object$/],
  ])('refuses %j naming the field', (body, message) => {
    expect(problem(body)).toMatch(message);
  });

  it('names every invalid field at once', () => {
    expect(problem({ model: 'x', duration: 99 })).toMatch(/prompt: .*; model: .*; duration: /);
  });
});
