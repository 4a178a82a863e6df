import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import sharp from 'sharp';
import { createS3Client } from '#adapters/s3/s3-client';
import type { LocalStack } from '#bin/local-stack/stack';
import { createAccount, createApiKey } from '#domain/accounts/account-admin';
import { ffmpegPath } from '#providers/simulated/media/ffmpeg';
import { imageDeclaring, pngDeclaring, withMetadataBefore } from '#test-support/declared-size';
import { call, listKeys, startTestApi, waitForFinal, type ApiReply } from '#test-support/local-api';

/** Uploads over real HTTP: multipart through the API, and the presigned direct path. */
jest.setTimeout(60_000);

const MiB = 1024 * 1024;
let stack: LocalStack;
let key: string;
let otherKey: string;

beforeAll(async () => {
  stack = await startTestApi({ SIM_DELAY_SECONDS: '0', PROVIDER: 'simulated' });
  const keyFor = async () => {
    const { account } = await createAccount(stack.context, { credits: 500, paidAccess: true, subscriptionStatus: 'active' });
    return (await createApiKey(stack.context, account.accountId, { rateLimit: 1000 })).apiKey;
  };
  key = await keyFor();
  otherKey = await keyFor();
});
afterAll(async () => {
  await stack.stop();
});

const solid = (format: 'png' | 'jpeg' | 'webp', rgb = { r: 250, g: 20, b: 20 }) =>
  sharp({ create: { width: 96, height: 64, channels: 3, background: rgb } }).toFormat(format).toBuffer();
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

type Upload = { url: string; content_type: string; size: number };

function upload(bytes: Buffer, options: { field?: string; filename?: string; type?: string } = {}) {
  const form = new FormData();
  form.append(options.field ?? 'image', new Blob([bytes], { type: options.type ?? 'application/octet-stream' }), options.filename ?? 'file.bin');
  return call<Upload>(stack.baseUrl, '/upload', { method: 'POST', key, body: form });
}

function rawUpload(body: Buffer | string, contentType: string) {
  return call<Upload>(stack.baseUrl, '/upload', { method: 'POST', key, headers: { 'Content-Type': contentType }, body });
}

function expectRefused(reply: ApiReply, status: number, code: string, message: RegExp) {
  expect(reply.status).toBe(status);
  expect(reply.body).toEqual({ data: null, error: { code, message: expect.stringMatching(message) } });
}

describe('POST /upload', () => {
  it.each([
    ['png', 'image/png'],
    ['jpeg', 'image/jpeg'],
    ['webp', 'image/webp'],
  ] as const)('stores a %s, typed by its bytes, at an unguessable public URL with the same bytes', async (format, type) => {
    const bytes = await solid(format);
    // Misleading name and declared type: the bytes decide.
    const reply = await upload(bytes, { filename: 'holiday.gif', type: 'text/plain' });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({ url: expect.any(String), content_type: type, size: bytes.length });
    const url = reply.body.data!.url;
    expect(url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${stack.apiPort}/media/uploads/[0-9a-f]{32}\\.(png|jpg|webp)$`));
    const fetched = await fetch(url); // no key
    expect(fetched.headers.get('content-type')).toBe(type);
    expect(sha256(Buffer.from(await fetched.arrayBuffer()))).toBe(sha256(bytes));
  });

  it('accepts exactly 10 MiB and refuses 10 MiB + 1 byte and an empty file, writing nothing', async () => {
    const png = await solid('png');
    const exactly = Buffer.concat([png, Buffer.alloc(10 * MiB - png.length)]);
    const ok = await upload(exactly);
    expect(ok.status).toBe(200);
    expect(ok.body.data?.size).toBe(10 * MiB);
    const before = await listKeys(stack, 'uploads/');
    expectRefused(await upload(Buffer.concat([exactly, Buffer.from([0])])), 400, 'validation_error', /^image: .*10 MiB/);
    expectRefused(await upload(Buffer.alloc(0)), 400, 'validation_error', /^image: .*empty/);
    expect(await listKeys(stack, 'uploads/')).toEqual(before);
  });

  it('refuses a renamed text file, a polyglot-looking file and a GIF', async () => {
    const before = await listKeys(stack, 'uploads/');
    for (const bytes of [
      Buffer.from('hello, I am text pretending to be a PNG'),
      Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(100)]),
      Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.from('<html>')]),
    ]) {
      expectRefused(await upload(bytes, { filename: 'x.png', type: 'image/png' }), 400, 'validation_error', /^image: must be a JPEG, PNG or WebP/);
    }
    expect(await listKeys(stack, 'uploads/')).toEqual(before);
  });

  it('refuses an image declaring more than 8192 pixels per side (a decompression bomb), naming image and the limit', async () => {
    const before = await listKeys(stack, 'uploads/');
    for (const format of ['png', 'jpeg', 'webp'] as const) {
      const reply = await upload(await imageDeclaring(format, 16000, 16000));
      expectRefused(reply, 400, 'validation_error', /^image: it declares 16000x16000 pixels; at most 8192 pixels per side are accepted\./);
    }
    expect(await listKeys(stack, 'uploads/')).toEqual(before);
  });

  it('refuses a 16-bit RGBA PNG at the side cap by what it decodes to (512 MiB), naming image; 8-bit RGBA at the cap is taken', async () => {
    const rgba = (depth: 'rgb16' | 'srgb') =>
      sharp({ create: { width: 16, height: 8, channels: 4, background: { r: 9, g: 90, b: 200, alpha: 0.5 } } }).toColourspace(depth).png().toBuffer();
    const before = await listKeys(stack, 'uploads/');
    const deep = await upload(pngDeclaring(await rgba('rgb16'), 8192, 8192));
    expectRefused(deep, 400, 'validation_error', /^image: it declares 8192x8192 pixels of 4 channels at 16 bits, which decode to 512 MiB; at most 256 MiB decoded are accepted\./);
    expect(await listKeys(stack, 'uploads/')).toEqual(before);
    expect((await upload(pngDeclaring(await rgba('srgb'), 8192, 8192))).status).toBe(200);
  });

  it('refuses malformed multipart bodies with 400 naming the problem', async () => {
    const png = await solid('png');
    expectRefused(await rawUpload(png, 'multipart/form-data'), 400, 'validation_error', /boundary/);
    expectRefused(await rawUpload('{"image":"x"}', 'application/json'), 400, 'validation_error', /multipart\/form-data/);
    const truncated = Buffer.concat([
      Buffer.from('--XYZ\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n'),
      png.subarray(0, 50),
    ]);
    expectRefused(await rawUpload(truncated, 'multipart/form-data; boundary=XYZ'), 400, 'validation_error', /malformed|truncated/);
    expectRefused(await upload(png, { field: 'file' }), 400, 'validation_error', /^image: .*required/);
    const two = new FormData();
    two.append('image', new Blob([png]), 'a.png');
    two.append('other', new Blob([png]), 'b.png');
    const reply = await call(stack.baseUrl, '/upload', { method: 'POST', key, body: two });
    expectRefused(reply, 400, 'validation_error', /only one file part/);
  });

  it('serves only public prefixes, whatever the encoding of the path', async () => {
    const { uploadId } = await (async () => {
      const created = await call<{ upload_id: string; upload_url: string; fields: Record<string, string> }>(stack.baseUrl, '/uploads', { method: 'POST', key });
      const form = new FormData();
      for (const [name, value] of Object.entries(created.body.data!.fields)) form.append(name, value);
      form.append('file', new Blob([await solid('png')]), 'a.png');
      await fetch(created.body.data!.upload_url, { method: 'POST', body: form });
      return { uploadId: created.body.data!.upload_id };
    })();
    const [incoming] = (await listKeys(stack, 'incoming/')).filter((k) => k.endsWith(uploadId));
    const media = `http://127.0.0.1:${stack.apiPort}/media/`;
    for (const path of [
      incoming!,
      `uploads/../${incoming}`,
      `uploads%2F..%2F${encodeURIComponent(incoming!)}`,
      `videos/%2e%2e/${incoming}`,
      'uploads/%E0%A4%A',
    ]) {
      expect({ path, status: (await fetch(media + path)).status }).toEqual({ path, status: 404 });
    }
  });

  it('serves only image and video types, with nosniff, whatever a tampered bucket holds', async () => {
    // s3rver takes unsigned writes: anything can land under a public prefix with any type.
    const s3 = createS3Client({ region: 'local', endpoint: stack.s3Endpoint });
    const put = (key: string, body: Buffer | string, type: string) =>
      s3.send(new PutObjectCommand({ Bucket: stack.context.storage.bucket, Key: key, Body: body, ContentType: type }));
    const png = await solid('png');
    try {
      await put('uploads/evil.html', '<script>alert(document.domain)</script>', 'text/html');
      await put('uploads/evil.svg', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', 'image/svg+xml');
      await put('videos/evil.mp4', '<script>alert(1)</script>', 'text/html; charset=utf-8');
      await put('images/untyped.png', png, 'application/octet-stream');
      await put('uploads/fine.png', png, 'image/png');
    } finally {
      s3.destroy();
    }
    const media = `http://127.0.0.1:${stack.apiPort}/media/`;
    for (const path of ['uploads/evil.html', 'uploads/evil.svg', 'videos/evil.mp4', 'images/untyped.png']) {
      const response = await fetch(media + path);
      const body = await response.text();
      expect({ path, status: response.status, type: response.headers.get('content-type') }).toEqual({
        path,
        status: 404,
        type: 'application/json; charset=utf-8',
      });
      expect(JSON.parse(body)).toEqual({ data: null, error: { code: 'not_found', message: expect.any(String) } });
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    }
    const fine = await fetch(media + 'uploads/fine.png');
    expect(fine.status).toBe(200);
    expect(fine.headers.get('content-type')).toBe('image/png');
    expect(fine.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await fine.arrayBuffer())).toEqual(png);
  });

  it('answers a Range it cannot satisfy with 416 and the size, a satisfiable one with 206', async () => {
    const png = await solid('png');
    const { url } = (await upload(png, { filename: 'a.png' })).body.data!;
    const beyond = await fetch(url, { headers: { Range: `bytes=${png.length + 10}-` } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${png.length}`);
    expect(await beyond.json()).toEqual({ data: null, error: { code: 'validation_error', message: expect.stringMatching(/Range/) } });
    const part = await fetch(url, { headers: { Range: 'bytes=0-7' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 0-7/${png.length}`);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(png.subarray(0, 8));
  });

  it('answers exactly the bytes a Range asks for: the first byte, a suffix, an open end, past the end', async () => {
    const png = await solid('png');
    const { url } = (await upload(png, { filename: 'a.png' })).body.data!;
    const last = png.length - 1;
    for (const [range, first, end] of [
      ['bytes=0-0', 0, 0],
      ['bytes=5-5', 5, 5],
      ['bytes=-10', png.length - 10, last],
      [`bytes=-${png.length + 50}`, 0, last],
      ['bytes=10-', 10, last],
      [`bytes=20-${png.length + 99}`, 20, last],
    ] as const) {
      const part = await fetch(url, { headers: { Range: range } });
      const body = Buffer.from(await part.arrayBuffer());
      expect({ range, status: part.status, contentRange: part.headers.get('content-range'), length: part.headers.get('content-length') }).toEqual({
        range,
        status: 206,
        contentRange: `bytes ${first}-${end}/${png.length}`,
        length: String(end - first + 1),
      });
      expect(body).toEqual(png.subarray(first, end + 1));
    }
    // What RFC 9110 lets a server ignore (several ranges, another unit, nonsense): the whole file.
    for (const range of ['bytes=0-1,4-5', 'items=0-1', 'bytes=x-y', 'bytes=5-2']) {
      const whole = await fetch(url, { headers: { Range: range } });
      expect({ range, status: whole.status }).toEqual({ range, status: 200 });
      expect(Buffer.from(await whole.arrayBuffer())).toEqual(png);
    }
    const empty = await fetch(url, { headers: { Range: 'bytes=-0' } });
    expect(empty.status).toBe(416);
  });

  it('answers a body larger than the gateway takes with 413 payload_too_large', async () => {
    const reply = await rawUpload(Buffer.alloc(13 * MiB), 'multipart/form-data; boundary=XYZ');
    expectRefused(reply, 413, 'payload_too_large', /^The request body is larger than the 10 MiB the API accepts\. Upload an image with POST \/api\/v1\/uploads/);
  });
});

describe('image-to-video with an upload', () => {
  it('uses the uploaded image as the first frame of a completed MP4', async () => {
    const uploaded = await upload(await solid('png', { r: 240, g: 10, b: 10 }));
    const started = await call<{ video_id: string }>(stack.baseUrl, '/generate', {
      method: 'POST',
      key,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        prompt: 'bring it to life',
        generation_type: 'image_to_video',
        image_url: uploaded.body.data!.url,
        duration: 3,
        resolution: '480p',
      }),
    });
    expect(started.status).toBe(200);
    const final = await waitForFinal<{ status: string; video_url: string; image_url: string }>(
      stack,
      key,
      `/videos/${started.body.data!.video_id}`,
    );
    expect(final.body.data).toMatchObject({ status: 'completed', image_url: uploaded.body.data!.url });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'i2v-'));
    writeFileSync(path.join(dir, 'v.mp4'), Buffer.from(await (await fetch(final.body.data!.video_url)).arrayBuffer()));
    await promisify(execFile)(ffmpegPath(), ['-loglevel', 'error', '-i', path.join(dir, 'v.mp4'), '-frames:v', '1', path.join(dir, 'f.png')]);
    const { channels } = await sharp(readFileSync(path.join(dir, 'f.png'))).stats();
    expect(channels[0]!.mean).toBeGreaterThan(150);
    expect(channels[1]!.mean).toBeLessThan(80);
  });

  it.each([
    ['http://169.254.169.254/latest/meta-data/', /not a public address/],
    ['http://localhost:9/cat.png', /not a public address/],
    ['http://[::ffff:127.0.0.1]/cat.png', /not a public address/],
    ['http://10.0.0.7/cat.png', /not a public address/],
    ['http://0x7f.1/cat.png', /not a public address/],
    ['https://user:secret@images.example.com/cat.png', /user name or password/],
    ['MEDIA/incoming/acc_x/upl_00000000000000000000000000000000', /only uploaded or generated files/],
    ['MEDIA/provider-sim/jobs/x.json', /only uploaded or generated files/],
    ['ORIGIN/api/v1/credits', /only uploaded or generated files/],
  ])('refuses image_url %s with 400 naming image_url, before any charge', async (template, reason) => {
    const imageUrl = template
      .replace('MEDIA', stack.context.storage.publicBaseUrl)
      .replace('ORIGIN', new URL(stack.baseUrl).origin);
    const credits = async () => (await call<{ credits: number }>(stack.baseUrl, '/credits', { key })).body.data!.credits;
    const before = await credits();
    const history = async () => (await call<{ pagination: { total: number } }>(stack.baseUrl, '/videos', { key })).body.data!.pagination.total;
    const tasksBefore = await history();
    const reply = await call(stack.baseUrl, '/generate', {
      method: 'POST',
      key,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ prompt: 'x', generation_type: 'image_to_video', image_url: imageUrl, duration: 3 }),
    });
    expectRefused(reply, 400, 'validation_error', /^image_url: we will not fetch this URL: /);
    expect(reply.body.error!.message).toMatch(reason);
    expect(reply.body.error!.message).toMatch(/\. To use a file of your own, upload it with POST \/upload and pass the URL it returns\.$/);
    expect(reply.body.error!.message).not.toContain('secret');
    expect(await credits()).toBe(before);
    expect(await history()).toBe(tasksBefore);
  });

  /** Writes straight to the bucket, as a file stored before today's checks would be. */
  async function putInBucket(key: string, body: Buffer, type: string) {
    const s3 = createS3Client({ region: 'local', endpoint: stack.s3Endpoint });
    await s3.send(new PutObjectCommand({ Bucket: stack.context.storage.bucket, Key: key, Body: body, ContentType: type }));
    s3.destroy();
    return `${stack.context.storage.publicBaseUrl}/${key}`;
  }

  const generateFrom = (imageUrl: string) =>
    call<{ video_id: string }>(stack.baseUrl, '/generate', {
      method: 'POST',
      key,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ prompt: 'x', generation_type: 'image_to_video', image_url: imageUrl, duration: 3 }),
    });

  it('refuses an image_url of our own media that is missing, not an image, or oversized: 400 naming image_url, nothing charged', async () => {
    const credits = async () => (await call<{ credits: number }>(stack.baseUrl, '/credits', { key })).body.data!.credits;
    const tasks = async () => (await call<{ pagination: { total: number } }>(stack.baseUrl, '/videos', { key })).body.data!.pagination.total;
    const before = { credits: await credits(), tasks: await tasks() };
    const cases: Array<[string, RegExp]> = [
      [`${stack.context.storage.publicBaseUrl}/uploads/00000000000000000000000000000000.png`, /there is no such file in our storage/],
      [await putInBucket('videos/e2e-not-an-image.mp4', Buffer.from('\0\0\0\x20ftypisom'), 'video/mp4'), /not a JPEG, PNG or WebP image \(our file is video\/mp4\)/],
      [await putInBucket('uploads/e2e-bomb.png', await imageDeclaring('png', 16000, 16000), 'image/png'), /16000x16000 pixels; at most 8192 pixels per side/],
    ];
    for (const [imageUrl, why] of cases) {
      const reply = await generateFrom(imageUrl);
      expectRefused(reply, 400, 'validation_error', /^image_url: we will not fetch this URL: /);
      expect(reply.body.error!.message).toMatch(why);
      expect(reply.body.error!.message).toMatch(/upload it with POST \/upload and pass the URL it returns\.$/);
    }
    expect({ credits: await credits(), tasks: await tasks() }).toEqual(before);
  });

  it('fails and refunds a task whose reference proves oversized when read, saying why', async () => {
    const credits = async () => (await call<{ credits: number }>(stack.baseUrl, '/credits', { key })).body.data!.credits;
    const before = await credits();
    // Its frame header lies past the first bytes read before the charge: only the read finds it.
    const bomb = withMetadataBefore(await imageDeclaring('jpeg', 9000, 9000), 100_000);
    const started = await generateFrom(await putInBucket('uploads/e2e-late-bomb.jpg', bomb, 'image/jpeg'));
    expect(started.status).toBe(200);
    const final = await waitForFinal<{ status: string; error: { code: string; message: string } }>(
      stack,
      key,
      `/videos/${started.body.data!.video_id}`,
    );
    expect(final.body.data).toMatchObject({
      status: 'failed',
      error: {
        code: 'upstream_error',
        message:
          'image_url could not be fetched: it declares 9000x9000 pixels; at most 8192 pixels per side are accepted. Your credits were refunded.',
      },
    });
    expect(await credits()).toBe(before);
  });

  it('fails a task whose uploaded reference has an image header but does not decode', async () => {
    const png = await solid('png');
    const corrupt = Buffer.concat([png.subarray(0, 33), Buffer.alloc(4000, 0xab)]);
    const uploaded = await upload(corrupt);
    expect(uploaded.status).toBe(200);
    const started = await call<{ video_id: string }>(stack.baseUrl, '/generate', {
      method: 'POST',
      key,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ prompt: 'x', generation_type: 'image_to_video', image_url: uploaded.body.data!.url, duration: 3 }),
    });
    const final = await waitForFinal<{ status: string; error: { code: string } }>(stack, key, `/videos/${started.body.data!.video_id}`);
    expect(final.status).toBe(200);
    expect(final.body.data).toMatchObject({ status: 'failed', error: { code: 'upstream_error' } });
    expect(final.body.data).toMatchObject({ error: { message: expect.stringMatching(/^image_url could not be decoded as an image/) } });
  });
});

describe('direct uploads (presigned)', () => {
  type Direct = { upload_id: string; upload_url: string; fields: Record<string, string>; max_bytes: number; expires_at: string };

  async function direct(bytes: Buffer, as = key) {
    const created = await call<Direct>(stack.baseUrl, '/uploads', { method: 'POST', key: as });
    expect(created.status).toBe(200);
    const { upload_id, upload_url, fields, max_bytes } = created.body.data!;
    expect(max_bytes).toBe(10 * MiB);
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    form.append('file', new Blob([bytes]), 'upload.bin');
    const stored = await fetch(upload_url, { method: 'POST', body: form });
    return { uploadId: upload_id, storedStatus: stored.status };
  }

  it('publishes a checked image with its sniffed type, and only its owner can complete it', async () => {
    const bytes = await solid('webp');
    const { uploadId, storedStatus } = await direct(bytes);
    expect(storedStatus).toBeLessThan(300);
    // Not public before it is checked.
    expect((await listKeys(stack, 'incoming/')).some((k) => k.endsWith(uploadId))).toBe(true);
    expect((await call(stack.baseUrl, `/uploads/${uploadId}/complete`, { method: 'POST', key: otherKey })).status).toBe(404);
    const done = await call<Upload>(stack.baseUrl, `/uploads/${uploadId}/complete`, { method: 'POST', key });
    expect(done.body.data).toEqual({ url: expect.stringContaining('/media/uploads/'), content_type: 'image/webp', size: bytes.length });
    expect(sha256(Buffer.from(await (await fetch(done.body.data!.url)).arrayBuffer()))).toBe(sha256(bytes));
    expect((await listKeys(stack, 'incoming/')).some((k) => k.endsWith(uploadId))).toBe(false);
  });

  it('refuses and deletes a stored file that is not an image', async () => {
    const { uploadId } = await direct(Buffer.from('not an image at all'));
    const reply = await call(stack.baseUrl, `/uploads/${uploadId}/complete`, { method: 'POST', key });
    expectRefused(reply, 400, 'validation_error', /^image: must be a JPEG, PNG or WebP/);
    expect((await listKeys(stack, 'incoming/')).some((k) => k.endsWith(uploadId))).toBe(false);
  });

  it('refuses and deletes a stored image declaring more than 8192 pixels per side', async () => {
    const { uploadId } = await direct(await imageDeclaring('png', 16000, 16000));
    const reply = await call(stack.baseUrl, `/uploads/${uploadId}/complete`, { method: 'POST', key });
    expectRefused(reply, 400, 'validation_error', /^image: it declares 16000x16000 pixels; at most 8192 pixels per side/);
    expect((await listKeys(stack, 'incoming/')).some((k) => k.endsWith(uploadId))).toBe(false);
  });

  it('refuses and deletes an empty stored file with 400', async () => {
    // S3 refuses an empty file by the policy's content-length-range; s3rver stores it.
    const { uploadId } = await direct(Buffer.alloc(0));
    expect((await listKeys(stack, 'incoming/')).some((k) => k.endsWith(uploadId))).toBe(true);
    const reply = await call(stack.baseUrl, `/uploads/${uploadId}/complete`, { method: 'POST', key });
    expectRefused(reply, 400, 'validation_error', /^image: the file is empty/);
    expect((await listKeys(stack, 'incoming/')).some((k) => k.endsWith(uploadId))).toBe(false);
  });

  it('publishes once when the same upload is completed concurrently: one URL, the others the same answer or 404', async () => {
    const created = await call<Direct>(stack.baseUrl, '/uploads', { method: 'POST', key });
    const { upload_id: uploadId, upload_url, fields } = created.body.data!;
    const postToForm = async (bytes: Buffer) => {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) form.append(name, value);
      form.append('file', new Blob([bytes]), 'upload.bin');
      expect((await fetch(upload_url, { method: 'POST', body: form })).status).toBeLessThan(300);
    };
    const bytes = await solid('png', { r: 1, g: 2, b: 3 });
    await postToForm(bytes);
    const before = await listKeys(stack, 'uploads/');
    const complete = () => call<Upload>(stack.baseUrl, `/uploads/${uploadId}/complete`, { method: 'POST', key });

    const replies = await Promise.all(Array.from({ length: 12 }, complete));

    const statuses = replies.map((reply) => reply.status);
    expect(statuses.filter((status) => status !== 200 && status !== 404)).toEqual([]);
    const ok = replies.filter((reply) => reply.status === 200);
    expect(ok.length).toBeGreaterThan(0);
    expect(new Set(ok.map((reply) => JSON.stringify(reply.body.data))).size).toBe(1);
    const answer = ok[0]!.body.data!;
    expect(answer).toEqual({ url: expect.stringContaining('/media/uploads/'), content_type: 'image/png', size: bytes.length });
    const published = (await listKeys(stack, 'uploads/')).filter((k) => !before.includes(k));
    expect(published).toHaveLength(1);
    expect(answer.url.endsWith(published[0]!)).toBe(true);
    expect(sha256(Buffer.from(await (await fetch(answer.url)).arrayBuffer()))).toBe(sha256(bytes));
    expect((await listKeys(stack, 'incoming/')).some((k) => k.endsWith(uploadId))).toBe(false);

    // A later completion answers the same, even after other bytes were POSTed to the form again
    // (they are dropped: a published image never changes).
    await postToForm(await solid('png', { r: 9, g: 9, b: 9 }));
    const repeat = await complete();
    expect(repeat.status).toBe(200);
    expect(repeat.body.data).toEqual(answer);
    expect((await listKeys(stack, 'uploads/')).filter((k) => !before.includes(k))).toEqual(published);
    expect((await listKeys(stack, 'incoming/')).some((k) => k.endsWith(uploadId))).toBe(false);
    expect(sha256(Buffer.from(await (await fetch(answer.url)).arrayBuffer()))).toBe(sha256(bytes));
  });

  it('answers an unknown upload id with 404', async () => {
    for (const id of ['upl_00000000000000000000000000000000', 'nonsense']) {
      const reply = await call(stack.baseUrl, `/uploads/${id}/complete`, { method: 'POST', key });
      expectRefused(reply, 404, 'not_found', /No upload/);
    }
  });
});
