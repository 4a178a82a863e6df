import type { CreditTransaction } from '#client';
import { axisTicks, spendPerDay, transactionsCsv } from '#console/usage';
import { curlCommand, fieldsOf, helpOf, labelOf, missingFields, optionLabel, requestBody, shownFields, type CatalogueModel, type RequestSchema } from '#console/playground-form';
import document from '../../docs/openapi.json';

/** The console's pure helpers: the overview's chart, the usage CSV and the playground's form. */
const transaction = (fields: Partial<CreditTransaction>): CreditTransaction => ({
  transaction_id: 'txn_1',
  type: 'charge',
  amount: -10,
  task_id: 'vid_1',
  reason: null,
  created_at: '2026-11-24T10:00:00.000Z',
  ...fields,
});

describe('axisTicks', () => {
  it('gives the chart a y-axis of round steps from 0 to at least the busiest day', () => {
    expect(axisTicks(0)).toEqual([0, 5, 10]);
    expect(axisTicks(38)).toEqual([0, 10, 20, 30, 40]);
    expect(axisTicks(125)).toEqual([0, 50, 100, 150]);
    expect(axisTicks(1000)).toEqual([0, 500, 1000]);
    for (const max of [1, 7, 99, 101, 4321]) {
      const ticks = axisTicks(max);
      expect(ticks[0]).toBe(0);
      expect(ticks.at(-1)!).toBeGreaterThanOrEqual(max);
      expect(ticks.length).toBeLessThanOrEqual(5);
    }
  });
});

describe('spendPerDay', () => {
  it('gives 30 UTC days ending today, charges less refunds, grants left out', () => {
    const days = spendPerDay(
      [
        transaction({ amount: -38 }),
        transaction({ type: 'refund', amount: 8, created_at: '2026-11-24T23:59:59.000Z' }),
        transaction({ type: 'grant', amount: 1000, task_id: null }),
        transaction({ amount: -5, created_at: '2026-10-26T00:00:00.000Z' }),
        transaction({ amount: -7, created_at: '2026-10-25T23:59:59.000Z' }), // 31 days ago: outside
      ],
      new Date('2026-11-24T12:00:00.000Z'),
    );
    expect(days).toHaveLength(30);
    expect(days[0]).toEqual({ day: '2026-10-26', credits: 5 });
    expect(days[29]).toEqual({ day: '2026-11-24', credits: 30 });
    expect(days.reduce((sum, day) => sum + day.credits, 0)).toBe(35);
  });
});

describe('transactionsCsv', () => {
  it('writes a header and one RFC 4180 line per transaction, quoting and defusing formulas', () => {
    const csv = transactionsCsv([
      transaction({ reason: 'refund, "canceled"' }),
      transaction({ transaction_id: 'txn_2', type: 'grant', amount: 1000, task_id: null, reason: '=HYPERLINK("x")' }),
    ]);
    expect(csv.split('\r\n')).toEqual([
      'transaction_id,created_at,type,amount,task_id,reason',
      'txn_1,2026-11-24T10:00:00.000Z,charge,-10,vid_1,"refund, ""canceled"""',
      `txn_2,2026-11-24T10:00:00.000Z,grant,1000,,"'=HYPERLINK(""x"")"`,
      '',
    ]);
  });
});

describe('the playground form', () => {
  const schemas = (document as any).components.schemas as Record<string, RequestSchema>;

  it('offers every parameter of POST /generate and /generate-image, with the allowed values', () => {
    for (const name of ['GenerateVideoRequest', 'GenerateImageRequest']) {
      const fields = fieldsOf(schemas[name]!);
      expect(fields.map((field) => field.name)).toEqual(Object.keys(schemas[name]!.properties));
    }
    const video = fieldsOf(schemas.GenerateVideoRequest!);
    expect(video.find((field) => field.name === 'duration')).toMatchObject({ kind: 'integer', schema: { minimum: 3, maximum: 12 } });
    expect(video.find((field) => field.name === 'resolution')).toMatchObject({ kind: 'choice', schema: { enum: ['480p', '720p', '1080p'] } });
    expect(video.find((field) => field.name === 'image_url')?.kind).toBe('url');
    expect(fieldsOf(schemas.GenerateImageRequest!).find((field) => field.name === 'images')?.kind).toBe('urls');
    expect(video.find((field) => field.name === 'end_user')?.kind).toBe('text');
    expect(video.find((field) => field.name === 'metadata')?.kind).toBe('pairs');
    // Metadata typed as key=value lines is sent as the object the API takes.
    expect(requestBody(video, { prompt: 'x', end_user: 'alice', metadata: 'order=1001\n\n plan = pro \nnote=a=b' })).toEqual({
      prompt: 'x',
      end_user: 'alice',
      metadata: { order: '1001', plan: 'pro', note: 'a=b' },
    });
  });

  it('names every field in words: capitalised labels, help without code quotes or pointers into the API reference', () => {
    for (const name of ['GenerateVideoRequest', 'GenerateImageRequest']) {
      for (const field of fieldsOf(schemas[name]!)) {
        expect(labelOf(field)).toMatch(/^[A-Z]/);
        expect(labelOf(field)).not.toContain('_');
        expect(helpOf(field) ?? '').not.toMatch(/`|GET \/|POST \/|capabilities\./);
      }
    }
    const video = fieldsOf(schemas.GenerateVideoRequest!);
    expect(video.map(labelOf)).toEqual(['Prompt', 'Model', 'Generation type', 'Image URL', 'End image URL', 'Aspect ratio', 'Duration (seconds)', 'Resolution', 'Seed', 'Negative prompt', 'End user', 'Metadata', 'Output destination', 'Keep output', 'Thumbnail destination']);
    expect(helpOf(video.find((field) => field.name === 'duration')!)).toBe('Whole seconds, 3 to 12.');
    // A parameter the console has no words for yet: its name in sentence case, the API's description without code quotes.
    const later = { name: 'keep_output', kind: 'text' as const, schema: { description: 'Whether to keep our copy (`keep_output` in `GET /videos`). Echoed back.' } };
    expect([labelOf(later), helpOf(later)]).toEqual(['Keep output', 'Echoed back.']);
    expect(optionLabel({ name: 'generation_type' }, 'image_to_video')).toBe('Image to video');
  });

  it('shows and sends image URLs only for image-to-video, and only what the chosen model can do', () => {
    const fields = fieldsOf(schemas.GenerateVideoRequest!);
    const names = (values: Record<string, string>, models?: CatalogueModel[]) => shownFields(fields, values, models).map((field) => field.name);
    expect(names({})).not.toEqual(expect.arrayContaining(['image_url']));
    expect(names({})).not.toContain('end_image_url');
    expect(names({ generation_type: 'image_to_video' })).toEqual(expect.arrayContaining(['image_url', 'end_image_url']));
    const models: CatalogueModel[] = [
      { id: 'vid-1-5-pro', name: 'Lite video model', subscription_required: false, capabilities: { image_to_video: true, end_image: true, seed: true, negative_prompt: true } },
      { id: 'vid-2-0-fast', name: 'Fast 1.0 video model', subscription_required: true, capabilities: { image_to_video: true, end_image: false, seed: true, negative_prompt: true } },
    ];
    expect(names({ generation_type: 'image_to_video', model: 'vid-2-0-fast' }, models)).not.toContain('end_image_url');
    expect(optionLabel({ name: 'model' }, 'vid-2-0-fast', models)).toBe('Fast 1.0 video model (vid-2-0-fast) · subscription');
    // A URL typed before switching back to text-to-video is not sent (the API would refuse it).
    const values = { prompt: 'x', generation_type: 'text_to_video', image_url: 'https://a/1.png' };
    expect(requestBody(shownFields(fields, values), values)).toEqual({ prompt: 'x' });
    const imageToVideo = { prompt: 'x', generation_type: 'image_to_video' };
    expect(missingFields(shownFields(fields, imageToVideo), imageToVideo).map((field) => field.name)).toEqual(['image_url']);
  });

  it('sends what was given in the API\'s types, leaving defaults to the API, and says it as curl', () => {
    const fields = fieldsOf(schemas.GenerateImageRequest!);
    const body = requestBody(fields, { prompt: " a cat's hat ", resolution: '1k', aspect_ratio: '16:9', images: 'https://a/1.png\nhttps://a/2.png', output_format: '' });
    expect(body).toEqual({ prompt: "a cat's hat", aspect_ratio: '16:9', images: ['https://a/1.png', 'https://a/2.png'] });
    const durations = requestBody(fieldsOf(schemas.GenerateVideoRequest!), { prompt: 'x', duration: '7' });
    expect(durations).toEqual({ prompt: 'x', duration: 7 });
    const curl = curlCommand('http://127.0.0.1:3000/api/v1', '/generate-image', body);
    expect(curl).toContain('curl -s -X POST http://127.0.0.1:3000/api/v1/generate-image');
    expect(curl).toContain(`-d '{"prompt":"a cat'\\''s hat"`);
  });
});
