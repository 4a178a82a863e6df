import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ReferenceImages, ReferenceUnavailableError } from '#adapters/reference-images';
import { ObjectStorage } from '#adapters/s3/object-storage';
import { createS3Client } from '#adapters/s3/s3-client';
import { createSafeFetcher } from '#adapters/safe-fetch';
import { staticRefusal } from '#adapters/url-rules';
import { imageDeclaring } from '#test-support/declared-size';

/**
 * Reference image URLs: what is refused before a charge (the URL, and our own files' first
 * bytes; no other network I/O), and the words a task's
 * error gives when a fetch fails later. Real s3rver and a real HTTP server on 127.0.0.1.
 */
const MEDIA = 'http://127.0.0.1:1/media';
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

let files: http.Server;
let filesOrigin: string;
const s3 = createS3Client({ region: 'local', endpoint: process.env.TEST_S3_ENDPOINT! });
const storage = new ObjectStorage(s3, process.env.TEST_MEDIA_BUCKET!, MEDIA);

beforeAll(async () => {
  files = http.createServer((req, res) => {
    if (req.url === '/cat.png') res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    else if (req.url === '/bomb.gif') void imageDeclaring('gif', 20000, 300).then((gif) => res.writeHead(200).end(gif));
    else if (req.url === '/huge.png') res.writeHead(200, { 'content-length': 11 * 1024 * 1024 }).end();
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  filesOrigin = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => files.close(resolve));
  s3.destroy();
});

/** The file server answers for images.example.com, whose lookup the test decides. */
function referencesResolvingTo(...addresses: string[]) {
  const lookup = jest.fn(async () => addresses);
  const fetcher = createSafeFetcher({ allowedOrigins: [], maxBytes: 10 * 1024 * 1024, timeoutMs: 5000, lookup });
  return { references: new ReferenceImages(storage, fetcher), lookup };
}

const asPublicHost = (path: string) => `http://images.example.com:${new URL(filesOrigin).port}${path}`;

/** images.example.com reaches the local file server (an allowed origin may resolve to loopback). */
function servedByFiles() {
  const fetcher = createSafeFetcher({
    allowedOrigins: [asPublicHost('')],
    maxBytes: 10 * 1024 * 1024,
    timeoutMs: 5000,
    lookup: async () => ['127.0.0.1'],
  });
  return new ReferenceImages(storage, fetcher);
}

async function reason(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ReferenceUnavailableError);
  return (error as ReferenceUnavailableError).reason;
}

describe('refused before any charge (no fetch of any URL but our own files)', () => {
  const { references, lookup } = referencesResolvingTo('93.184.215.14');

  it.each([
    ['http://localhost/cat.png', /not a public address/],
    ['http://LOCALHOST./cat.png', /not a public address/],
    ['http://img.localhost:8080/cat.png', /not a public address/],
    ['http://127.0.0.1:8080/cat.png', /not a public address/],
    ['http://2130706433/cat.png', /not a public address/],
    ['http://[::1]/cat.png', /not a public address/],
    ['http://[fe80::1]/cat.png', /not a public address/],
    ['http://169.254.169.254/latest/meta-data/', /not a public address/],
    ['http://192.168.1.20/cat.png', /not a public address/],
    ['http://100.64.0.1/cat.png', /not a public address/],
    ['https://user:pw@images.example.com/cat.png', /user name or password/],
    ['ftp://images.example.com/cat.png', /absolute http\(s\) URL/],
    [`${MEDIA}/incoming/acc_1/upl_0123`, /only uploaded or generated files/],
    [`${MEDIA}/provider-sim/jobs/sim_1.json`, /only uploaded or generated files/],
    [`${MEDIA}/uploads/../incoming/x`, /only uploaded or generated files/],
    ['http://127.0.0.1:1/api/v1/credits', /only uploaded or generated files/],
  ])('%s', async (url, words) => {
    expect(await references.whyRefused(url)).toMatch(words);
    expect(lookup).not.toHaveBeenCalled();
  });

  it.each([
    'https://images.example.com/cat.png',
    'http://93.184.215.14/cat.png',
    'http://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/cat.png',
    'https://images.example.com:8443/cat.png',
  ])('accepts %s', async (url) => {
    expect(await references.whyRefused(url)).toBeUndefined();
    expect(lookup).not.toHaveBeenCalled();
  });

  it('one of our own files: only an image that is there and not oversized (its first bytes are read)', async () => {
    await storage.put('uploads/own-ok.png', await imageDeclaring('png', 640, 480), 'image/png');
    await storage.put('images/own-generated.webp', await imageDeclaring('webp', 4096, 2304), 'image/webp');
    await storage.put('videos/own-video.mp4', Buffer.from('\0\0\0\x20ftypisom not an image'), 'video/mp4');
    await storage.put('uploads/own-bomb.png', await imageDeclaring('png', 16000, 16000), 'image/png');
    expect(await references.whyRefused(`${MEDIA}/uploads/own-ok.png`)).toBeUndefined();
    expect(await references.whyRefused(`${MEDIA}/images/own-generated.webp`)).toBeUndefined();
    expect(await references.whyRefused(`${MEDIA}/uploads/0123abcd.png`)).toBe('there is no such file in our storage (upload it again)');
    expect(await references.whyRefused(`${MEDIA}/videos/own-video.mp4`)).toBe(
      'it is not a JPEG, PNG or WebP image (our file is video/mp4)',
    );
    expect(await references.whyRefused(`${MEDIA}/uploads/own-bomb.png`)).toBe(
      'it declares 16000x16000 pixels; at most 8192 pixels per side are accepted',
    );
    expect(lookup).not.toHaveBeenCalled();
  });

  it('staticRefusal knows nothing of our origin: our loopback media URL is refused there', () => {
    expect(staticRefusal(`${MEDIA}/uploads/x.png`)?.reason).toBe('blocked_address');
    expect(staticRefusal('https://images.example.com/x.png')).toBeUndefined();
  });
});

describe('read: fetch-time failures say why', () => {
  it('reads a file from a public host', async () => {
    const pinned = servedByFiles();
    expect(await pinned.read(asPublicHost('/cat.png'))).toEqual(PNG);
  });

  it('a host that resolves to a private address', async () => {
    const { references } = referencesResolvingTo('10.1.2.3');
    expect(await reason(references.read(asPublicHost('/cat.png')))).toBe(
      'its host resolves to an address that is not public (private, loopback or link-local)',
    );
  });

  it('an answer that is not 2xx, and a file over 10 MiB', async () => {
    const pinned = servedByFiles();
    expect(await reason(pinned.read(asPublicHost('/missing.png')))).toBe('the server answered 404');
    expect(await reason(pinned.read(asPublicHost('/huge.png')))).toBe('the file is larger than 10 MiB');
  });

  it('an image declaring more than 8192 pixels per side (a decompression bomb), before anything decodes it', async () => {
    const pinned = servedByFiles();
    expect(await reason(pinned.read(asPublicHost('/bomb.gif')))).toBe(
      'it declares 20000x300 pixels; at most 8192 pixels per side are accepted',
    );
  });

  it('a host name that does not resolve', async () => {
    const lookup = jest.fn(async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    });
    const references = new ReferenceImages(storage, createSafeFetcher({ allowedOrigins: [], maxBytes: 1024, timeoutMs: 5000, lookup }));
    expect(await reason(references.read('https://nowhere.example.com/cat.png'))).toBe('its host name could not be resolved');
  });

  it('one of our public URLs with no file behind it, and one we refuse outright', async () => {
    const { references } = referencesResolvingTo('93.184.215.14');
    await storage.put('uploads/reference-test.png', PNG, 'image/png');
    expect(await references.read(`${MEDIA}/uploads/reference-test.png`)).toEqual(PNG);
    expect(await reason(references.read(`${MEDIA}/uploads/no-such-file.png`))).toBe(
      'there is no such file in our storage (upload it again)',
    );
    expect(await reason(references.read('http://169.254.169.254/latest/meta-data/'))).toMatch(/not a public address/);
  });
});
