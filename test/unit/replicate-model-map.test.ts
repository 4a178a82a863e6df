import { capabilitiesOf, VIDEO_MODEL_IDS } from '#domain/catalogue/catalogue';
import type { ImageJob, VideoJob } from '#domain/providers/provider';
import defaultModels from '../../functions/providers/replicate/default-models.json';
import {
  buildInput,
  findMapping,
  MODEL_IDS,
  ModelMapError,
  parseModelMap,
  type ReplicateModelMapping,
} from '#providers/replicate/model-map';

const VERSION = 'c0ffee'.padEnd(64, '0');

const videoJob: VideoJob = {
  kind: 'video',
  taskId: 'vid_01',
  model: 'vid-1-5-pro',
  generationType: 'text_to_video',
  prompt: 'a red fox in the snow',
  aspectRatio: '16:9',
  duration: 5,
  resolution: '720p',
};

const imageJob: ImageJob = {
  kind: 'image',
  taskId: 'img_01',
  model: 'image-2',
  prompt: 'a lighthouse at dusk',
  resolution: '2k',
  aspectRatio: '1:1',
  outputFormat: 'webp',
  images: ['https://example.com/a.png', 'https://example.com/b.png'],
};

/** parseModelMap's error for a map, failing the test when it does not throw. */
function parseError(json: unknown): ModelMapError {
  try {
    parseModelMap(json);
  } catch (error) {
    expect(error).toBeInstanceOf(ModelMapError);
    return error as ModelMapError;
  }
  throw new Error('parseModelMap accepted an invalid map');
}

function mapping(input: Record<string, unknown>): ReplicateModelMapping {
  const map = parseModelMap({ 'vid-1-5-pro': { model: 'owner/name', input } });
  const found = findMapping(map, 'vid-1-5-pro');
  if (!found) throw new Error('mapping missing');
  return found;
}

describe('parseModelMap', () => {
  it('accepts the shipped default mapping, covering every model id', () => {
    const map = parseModelMap(defaultModels);
    for (const id of MODEL_IDS) expect(findMapping(map, id)).toBeDefined();
    expect(findMapping(map, 'image-2')?.model).toBe('bytedance/seedream-4');
  });

  it('accepts a version-based entry and a partial map', () => {
    const map = parseModelMap({ 'vid-2-0': { version: VERSION, input: { prompt: '{{prompt}}' } } });
    expect(findMapping(map, 'vid-2-0')).toEqual({ version: VERSION, input: { prompt: '{{prompt}}' } });
    expect(findMapping(map, 'vid-1-5-pro')).toBeUndefined();
  });

  it('drops $comment keys from the parsed map', () => {
    const map = parseModelMap({
      $comment: 'top',
      'image-2': { $comment: 'entry', model: 'o/n', input: {} },
    });
    expect(map).toEqual({ 'image-2': { model: 'o/n', input: {} } });
  });

  it('does not find inherited properties as model ids', () => {
    expect(findMapping(parseModelMap({}), 'toString')).toBeUndefined();
    expect(findMapping(parseModelMap({}), '__proto__')).toBeUndefined();
  });

  it.each([null, [], 'vid-2-0', 42])('rejects a map that is not an object (%p)', (json) => {
    expect(parseError(json).message).toMatch(/Invalid Replicate model map/);
  });

  it('names an unknown model id and lists the known ones', () => {
    const { message } = parseError({ 'vid-3-0': { model: 'o/n', input: {} } });
    expect(message).toContain('"vid-3-0"');
    expect(message).toContain('vid-1-5-pro, vid-2-0, vid-2-0-fast, image-2');
  });

  it('needs exactly one of model and version', () => {
    expect(parseError({ 'vid-2-0': { input: {} } }).message).toContain('vid-2-0: needs exactly one of');
    expect(parseError({ 'vid-2-0': { model: 'o/n', version: VERSION, input: {} } }).message).toContain(
      'vid-2-0: needs exactly one of',
    );
  });

  it('checks the shape of model and version', () => {
    expect(parseError({ 'vid-2-0': { model: 'just-a-name', input: {} } }).message).toContain(
      'vid-2-0.model: must look like "owner/name"',
    );
    expect(parseError({ 'vid-2-0': { version: 'abc', input: {} } }).message).toContain('vid-2-0.version');
  });

  it('needs an input object', () => {
    expect(parseError({ 'image-2': { model: 'o/n' } }).message).toContain('image-2.input');
    expect(parseError({ 'image-2': { model: 'o/n', input: [] } }).message).toContain('image-2.input');
  });

  it('rejects an unknown key in an entry', () => {
    expect(parseError({ 'image-2': { model: 'o/n', input: {}, inputs: {} } }).message).toContain('"inputs"');
  });

  it('names the model and field of a misspelt placeholder', () => {
    const { message } = parseError({ 'vid-2-0': { model: 'o/n', input: { duration: '{{durration}}' } } });
    expect(message).toContain('vid-2-0.input.duration');
    expect(message).toContain('{{durration}}');
  });

  it('rejects a placeholder that is only part of a string', () => {
    const { message } = parseError({ 'vid-2-0': { model: 'o/n', input: { prompt: 'cinematic, {{prompt}}' } } });
    expect(message).toContain('vid-2-0.input.prompt');
  });

  it('rejects a placeholder nested inside a literal, which would be sent as written', () => {
    const { message } = parseError({ 'image-2': { model: 'o/n', input: { image_input: ['{{image_url}}'] } } });
    expect(message).toContain('image-2.input.image_input.0');
  });

  it('checks value maps', () => {
    expect(
      parseError({ 'image-2': { model: 'o/n', input: { size: { from: 'resolutoin', map: {} } } } }).message,
    ).toContain('image-2.input.size.from');
    expect(parseError({ 'image-2': { model: 'o/n', input: { size: { from: 'resolution' } } } }).message).toContain(
      'image-2.input.size.map',
    );
    expect(
      parseError({ 'image-2': { model: 'o/n', input: { size: { from: 'resolution', map: {}, to: 1 } } } }).message,
    ).toContain('image-2.input.size');
  });

  it('reports every problem at once', () => {
    const { message } = parseError({
      'vid-2-0': { model: 'o/n', input: { a: '{{nope}}' } },
      'image-2': { input: {} },
    });
    expect(message).toContain('vid-2-0.input.a');
    expect(message).toContain('image-2: needs exactly one of');
  });
});

describe('buildInput', () => {
  it('keeps the type of whole-string placeholders and sends literals as written', () => {
    const input = buildInput(
      mapping({
        prompt: '{{prompt}}',
        duration: '{{duration}}',
        resolution: '{{ resolution }}',
        aspect_ratio: '{{aspect_ratio}}',
        generation: '{{generation_type}}',
        camera_fixed: false,
        fps: 24,
        seed: null,
        extra: { nested: ['a', 1] },
        label: 'plain text',
      }),
      videoJob,
    );
    expect(input).toStrictEqual({
      prompt: 'a red fox in the snow',
      duration: 5,
      resolution: '720p',
      aspect_ratio: '16:9',
      generation: 'text_to_video',
      camera_fixed: false,
      fps: 24,
      seed: null,
      extra: { nested: ['a', 1] },
      label: 'plain text',
    });
  });

  it('drops fields whose job value is undefined', () => {
    const template = {
      prompt: '{{prompt}}',
      image: '{{image_url}}',
      images: '{{images}}',
      output_format: '{{output_format}}',
      duration: '{{duration}}',
    };
    expect(buildInput(mapping(template), videoJob)).toStrictEqual({ prompt: videoJob.prompt, duration: 5 });
    const { images: _, ...textOnlyImage } = imageJob;
    expect(buildInput(mapping(template), textOnlyImage)).toStrictEqual({
      prompt: imageJob.prompt,
      output_format: 'webp',
    });
  });

  it('fills image_url for image-to-video and keeps images as an array', () => {
    const input = buildInput(mapping({ image: '{{image_url}}', refs: '{{images}}' }), {
      ...videoJob,
      generationType: 'image_to_video',
      imageUrl: 'https://example.com/first.png',
    });
    expect(input).toStrictEqual({ image: 'https://example.com/first.png' });
    expect(buildInput(mapping({ refs: '{{images}}' }), imageJob)).toStrictEqual({ refs: imageJob.images });
  });

  it('translates through a value map', () => {
    const size = { from: 'resolution', map: { '1k': '1K', '2k': { w: 2048, h: 2048 } } };
    expect(buildInput(mapping({ size }), imageJob)).toStrictEqual({ size: { w: 2048, h: 2048 } });
    expect(buildInput(mapping({ size }), { ...imageJob, resolution: '1k' })).toStrictEqual({ size: '1K' });
  });

  it('maps numbers through a value map by their text', () => {
    const seconds = { from: 'duration', map: { '5': '5s', '10': '10s' } };
    expect(buildInput(mapping({ seconds }), videoJob)).toStrictEqual({ seconds: '5s' });
  });

  it('drops a value-mapped field whose job value is undefined', () => {
    const frame = { from: 'image_url', map: {} };
    expect(buildInput(mapping({ frame }), videoJob)).toStrictEqual({});
  });

  it('throws ModelMapError naming the field and value missing from a value map', () => {
    const size = { from: 'resolution', map: { '1k': '1K' } };
    expect(() => buildInput(mapping({ size }), { ...imageJob, resolution: '4k' })).toThrow(ModelMapError);
    expect(() => buildInput(mapping({ size }), { ...imageJob, resolution: '4k' })).toThrow(
      /input\.size has no entry for resolution "4k"/,
    );
  });

  it('builds the shipped default inputs', () => {
    const map = parseModelMap(defaultModels);
    const image = findMapping(map, 'image-2');
    if (!image) throw new Error('image-2 missing from default mapping');
    expect(buildInput(image, { ...imageJob, resolution: '4k' })).toStrictEqual({
      prompt: imageJob.prompt,
      image_input: imageJob.images,
      size: '4K',
      aspect_ratio: '1:1',
      sequential_image_generation: 'disabled',
      max_images: 1,
    });
  });

  it('passes seed, negative prompt and end image where the mapping has an input for them, and nothing when left out', () => {
    const withExtras = mapping({ prompt: '{{prompt}}', seed: '{{seed}}', negative_prompt: '{{negative_prompt}}', last_frame_image: '{{end_image_url}}' });
    const job: VideoJob = {
      ...videoJob,
      generationType: 'image_to_video',
      imageUrl: 'https://example.com/first.png',
      endImageUrl: 'https://example.com/last.png',
      seed: 4_294_967_295,
      negativePrompt: 'blurry',
    };
    expect(buildInput(withExtras, job)).toStrictEqual({
      prompt: job.prompt,
      seed: 4_294_967_295,
      negative_prompt: 'blurry',
      last_frame_image: 'https://example.com/last.png',
    });
    expect(buildInput(withExtras, videoJob)).toStrictEqual({ prompt: videoJob.prompt });
  });

  it('maps a last frame exactly for the models whose catalogue entry has the end_image capability', () => {
    const map = parseModelMap(defaultModels);
    const job: VideoJob = { ...videoJob, generationType: 'image_to_video', imageUrl: 'https://example.com/a.png', endImageUrl: 'https://example.com/z.png', seed: 9 };
    for (const model of VIDEO_MODEL_IDS) {
      const input = buildInput(findMapping(map, model)!, { ...job, model });
      expect({ model, endImage: Object.values(input).includes(job.endImageUrl!) }).toEqual({ model, endImage: capabilitiesOf(model).endImage });
      expect({ model, seed: input.seed }).toEqual({ model, seed: 9 });
    }
  });
});
