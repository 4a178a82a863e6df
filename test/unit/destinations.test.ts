/** Output destinations at the start (CONTRACT.md, "Your storage"): every refusal a 400 naming its field. */
import { webhookDestinations } from '#adapters/webhook-destinations';
import { parseImageStart } from '#contract/generate-image';
import { parseVideoStart } from '#contract/generate-video';
import { checkDestinations } from '#domain/tasks/destination-rules';
import type { Destination } from '#domain/tasks/destinations';
import { ValidationError } from '#domain/shared/errors';

const deployed = webhookDestinations({ allowLoopback: false });
const local = webhookDestinations({ allowLoopback: true });
const PRESIGNED = 'https://bucket.s3.eu-west-1.amazonaws.com/out/cat.mp4?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=abc';

/** The field a check refuses, or undefined when it passes. */
function refusedField(check: () => void): string | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    expect(error.message.startsWith(`${error.field}`) || error.message.startsWith(error.field!.split('.')[0]!)).toBe(true);
    return error.field;
  }
}

const video = (output: Destination, more: { thumbnail?: Destination; keepOutput?: false } = {}) =>
  ({ kind: 'video' as const, destination: { output, ...(more.thumbnail && { thumbnail: more.thumbnail }) }, ...(more.keepOutput === false && { keepOutput: false as const }) });
const at = (url: string, headers: Record<string, string> = {}): Destination => ({ url, headers });

describe('checkDestinations', () => {
  it('accepts a presigned https URL, with headers, and no destination at all', () => {
    expect(refusedField(() => checkDestinations(deployed, video(at(PRESIGNED, { 'x-ms-blob-type': 'BlockBlob', 'Content-Type': 'video/mp4' }))))).toBeUndefined();
    expect(refusedField(() => checkDestinations(deployed, { kind: 'image' }))).toBeUndefined();
  });

  it.each([
    ['http://bucket.example.com/a.mp4', 'not https'],
    ['ftp://bucket.example.com/a.mp4', 'another scheme'],
    ['https://user:pass@bucket.example.com/a.mp4', 'credentials'],
    ['https://127.0.0.1/a.mp4', 'loopback'],
    ['https://localhost/a.mp4', 'localhost'],
    ['https://10.0.0.7/a.mp4', 'private'],
    ['https://169.254.169.254/latest/meta-data', 'metadata service'],
    ['https://[::1]/a.mp4', 'IPv6 loopback'],
    ['https://bucket.example.com/a.mp4#part', 'a fragment'],
    ['not a url', 'not a URL'],
  ])('refuses %s (%s) naming output_destination.url', (url) => {
    expect(refusedField(() => checkDestinations(deployed, video(at(url))))).toBe('output_destination.url');
  });

  it('the local stack also takes http://127.0.0.1 (as for webhooks), still not a private address', () => {
    expect(refusedField(() => checkDestinations(local, video(at('http://127.0.0.1:9911/a.mp4'))))).toBeUndefined();
    expect(refusedField(() => checkDestinations(local, video(at('http://10.0.0.7/a.mp4'))))).toBe('output_destination.url');
  });

  it.each([
    ['output_destination.headers.Host', { Host: 'x' }],
    ['output_destination.headers.content-length', { 'content-length': '1' }],
    ['output_destination.headers.Authorization', { Authorization: 'Bearer x' }],
    ['output_destination.headers.cookie', { cookie: 'a=b' }],
    ['output_destination.headers.Proxy-Authorization', { 'Proxy-Authorization': 'x' }],
    ['output_destination.headers.expect', { expect: '100-continue' }],
    ['output_destination.headers.bad name', { 'bad name': 'x' }],
    ['output_destination.headers.x-a', { 'x-a': 'line\r\nInjected: yes' }],
    ['output_destination.headers.x-a', { 'x-a': 'caf\u00e9' }],
    ['output_destination.headers.x-a', { 'x-a': 'a'.repeat(2049) }],
    ['output_destination.headers.x-meta', { 'X-Meta': '1', 'x-meta': '2' }],
    ['output_destination.headers', Object.fromEntries(Array.from({ length: 11 }, (_, index) => [`x-h${index}`, 'v']))],
    ['output_destination.headers', Object.fromEntries(Array.from({ length: 5 }, (_, index) => [`x-h${index}`, 'v'.repeat(2000)]))],
  ])('refuses headers naming %s', (field, headers) => {
    expect(refusedField(() => checkDestinations(deployed, video(at(PRESIGNED, headers))))).toBe(field);
  });

  it('judges the thumbnail destination by the same rules, naming it', () => {
    expect(refusedField(() => checkDestinations(deployed, video(at(PRESIGNED), { thumbnail: at('https://10.1.1.1/t.jpg') })))).toBe('thumbnail_destination.url');
  });

  it('keep_output false needs a destination; images take no thumbnail destination', () => {
    expect(refusedField(() => checkDestinations(deployed, { kind: 'video', keepOutput: false }))).toBe('keep_output');
    expect(refusedField(() => checkDestinations(deployed, { kind: 'image', destination: { output: at(PRESIGNED), thumbnail: at(PRESIGNED) } }))).toBe('thumbnail_destination');
  });
});

describe('the start bodies', () => {
  it('carry the destination, headers and keep_output into the request (each only when given)', () => {
    const request = parseVideoStart({
      prompt: 'a cat',
      output_destination: { url: PRESIGNED, headers: { 'x-ms-blob-type': 'BlockBlob' } },
      thumbnail_destination: { url: PRESIGNED },
      keep_output: false,
    });
    expect(request).toMatchObject({
      destination: { output: { url: PRESIGNED, headers: { 'x-ms-blob-type': 'BlockBlob' } }, thumbnail: { url: PRESIGNED, headers: {} } },
      keepOutput: false,
    });
    const plain = parseVideoStart({ prompt: 'a cat', keep_output: true });
    expect(plain).not.toHaveProperty('destination');
    expect(plain).not.toHaveProperty('keepOutput');
    expect(parseImageStart({ prompt: 'a cat', output_destination: { url: PRESIGNED } }).destination).toEqual({ output: { url: PRESIGNED, headers: {} } });
  });

  it('refuses shapes zod can tell, naming the field', () => {
    const fieldOf = (parse: () => unknown) => {
      try {
        parse();
        return undefined;
      } catch (error) {
        const issues = (error as { issues?: { path: PropertyKey[] }[] }).issues;
        return issues ? issues[0]!.path.join('.') : (error as ValidationError).field;
      }
    };
    expect(fieldOf(() => parseVideoStart({ prompt: 'a', output_destination: 'https://x' }))).toBe('output_destination');
    expect(fieldOf(() => parseVideoStart({ prompt: 'a', output_destination: { url: PRESIGNED, headers: { a: 1 } } }))).toBe('output_destination.headers.a');
    expect(fieldOf(() => parseVideoStart({ prompt: 'a', thumbnail_destination: { url: PRESIGNED } }))).toBe('thumbnail_destination');
    expect(fieldOf(() => parseVideoStart({ prompt: 'a', keep_output: 'no' }))).toBe('keep_output');
    expect(fieldOf(() => parseImageStart({ prompt: 'a', output_destination: { url: PRESIGNED }, thumbnail_destination: { url: PRESIGNED } }))).toBe('thumbnail_destination');
  });
});
