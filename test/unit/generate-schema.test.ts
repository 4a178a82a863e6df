import { ZodError } from 'zod';
import { parseGenerateVideo, parseVideoStart } from '#contract/generate-video';
import { parseImageStart } from '#contract/generate-image';
import { parseQuote } from '#contract/quote';
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

describe('end_user and metadata (both starts and /quote)', () => {
  const parsers = [
    ['POST /generate', (body: object) => parseVideoStart(body)],
    ['POST /generate-image', (body: object) => parseImageStart(body)],
    ['POST /quote', (body: object) => parseQuote({ kind: 'image', ...body })],
  ] as const;
  const refusal = (parse: (body: object) => unknown, body: object): string => {
    try {
      parse(body);
    } catch (error) {
      if (error instanceof ZodError) return describeZodError(error);
      throw error;
    }
    throw new Error(`expected ${JSON.stringify(body)} to be refused`);
  };
  const seventeen = Object.fromEntries(Array.from({ length: 17 }, (_, index) => [`k${index}`, 'v']));

  it.each(parsers)('%s takes both beside the parameters, never inside them', (_route, parse) => {
    const started = parse({ prompt: 'x', end_user: 'alice@example.com:42', metadata: { order_id: '1001', 'a-b_C': '' } });
    expect(started).toMatchObject({ endUser: 'alice@example.com:42', metadata: { order_id: '1001', 'a-b_C': '' } });
    expect(started.params).not.toHaveProperty('endUser');
    expect(started.params).not.toHaveProperty('metadata');
  });

  it.each(parsers)('%s leaves out what was not given, and empty metadata (so a request hashes as before)', (_route, parse) => {
    expect(Object.keys(parse({ prompt: 'x' }))).toEqual(['kind', 'params']);
    expect(Object.keys(parse({ prompt: 'x', metadata: {} }))).toEqual(['kind', 'params']);
  });

  it.each(parsers)('%s accepts the limits exactly', (_route, parse) => {
    const sixteen = Object.fromEntries(Array.from({ length: 16 }, (_, index) => [`${'k'.repeat(38)}${index}`.slice(-40), 'v'.repeat(500)]));
    expect(parse({ prompt: 'x', end_user: 'u'.repeat(128), metadata: sixteen })).toMatchObject({ endUser: 'u'.repeat(128), metadata: sixteen });
  });

  it.each(
    parsers.flatMap(([route, parse]) =>
      [
        [{ end_user: '' }, /^end_user: must be 1 to 128 characters of A-Z a-z 0-9 _ - \. : @$/],
        [{ end_user: 'u'.repeat(129) }, /^end_user: must be 1 to 128 characters/],
        [{ end_user: 'alice#1' }, /^end_user: must be 1 to 128 characters/],
        [{ end_user: 'a b' }, /^end_user: must be 1 to 128 characters/],
        [{ end_user: 42 }, /^end_user: must be 1 to 128 characters/],
        [{ end_user: null }, /^end_user: /],
        [{ metadata: 'x' }, /^metadata: must be an object of string values$/],
        [{ metadata: ['a'] }, /^metadata: must be an object of string values$/],
        [{ metadata: null }, /^metadata: must be an object of string values$/],
        [{ metadata: { order: 1001 } }, /^metadata\.order: must be a string$/],
        [{ metadata: { order: 'x'.repeat(501) } }, /^metadata\.order: must be at most 500 characters$/],
        [{ metadata: { 'bad key': 'x' } }, /^metadata\.bad key: keys must be 1 to 40 characters of A-Z a-z 0-9 _ -$/],
        [{ metadata: { ['k'.repeat(41)]: 'x' } }, /^metadata\.k{41}: keys must be/],
        [{ metadata: { '': 'x' } }, /^metadata\.: keys must be/],
        [{ metadata: seventeen }, /^metadata: must have at most 16 keys; got 17$/],
      ].map(([body, message]) => [route, body, message, parse] as const),
    ),
  )('%s refuses %j naming the field', (_route, body, message, parse) => {
    expect(refusal(parse, { prompt: 'x', ...(body as object) })).toMatch(message as RegExp);
  });
});
