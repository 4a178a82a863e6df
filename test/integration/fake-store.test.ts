/** The fake customer store answers as S3 does (test/support/fake-store.ts), seen through safe-fetch's put. */
import { createHash } from 'node:crypto';
import http from 'node:http';
import { Readable } from 'node:stream';
import { createSafeFetcher } from '#adapters/safe-fetch';
import { type FakeStore, startFakeStore } from '#test-support/fake-store';

const sender = createSafeFetcher({ allowedOrigins: [], allowLoopback: true, maxBytes: 4096, timeoutMs: 5000 });
const LIMITS = { idleTimeoutMs: 5000, deadlineMs: 30_000 };
const put = (url: string, body: Buffer) => sender.put(url, Readable.from([body]), body.length, {}, LIMITS);

let store: FakeStore;
afterEach(async () => store?.close());

it('answers 500, 500, then stores the object; each PUT recorded with its size', async () => {
  store = await startFakeStore({ answers: ['500', '500'] });
  const body = Buffer.from('the video');

  const statuses = [];
  for (let attempt = 0; attempt < 3; attempt += 1) statuses.push(await put(`${store.origin}/a.mp4`, body));

  expect(statuses.map((answer) => [answer.status, answer.errorCode])).toEqual([[500, 'InternalError'], [500, 'InternalError'], [200, undefined]]);
  expect(store.putsTo('/a.mp4').map((request) => request.bytes)).toEqual([9, 9, 9]);
  expect(store.object('/a.mp4')).toEqual(body);
  expect(store.requests[2]!.sha256).toBe(createHash('sha256').update(body).digest('hex'));
});

it('refuses with 403 before the body when asked to continue, with the code it was given', async () => {
  store = await startFakeStore({ answers: ['403:SignatureDoesNotMatch'] });
  const body = Buffer.alloc(2 * 1024 * 1024, 1);

  const answer = await put(`${store.origin}/b.mp4`, body);

  expect(answer).toMatchObject({ status: 403, errorCode: 'SignatureDoesNotMatch' });
  expect(store.requests[0]!.bytes).toBe(0);
  expect(store.object('/b.mp4')).toBeUndefined();
});

it('refuses a chunked body without Content-Length (411 MissingContentLength), as S3 does', async () => {
  store = await startFakeStore();
  const status = await new Promise<number>((resolve, reject) => {
    const request = http.request(`${store.origin}/c.mp4`, { method: 'PUT' }, (response) => resolve(response.statusCode ?? 0));
    request.on('error', reject);
    request.write('chunk');
    request.end('ed');
  });

  expect(status).toBe(411);
});

it('answers slowly when told, then well', async () => {
  store = await startFakeStore({ answers: ['slow:300'] });

  const first = await sender.put(`${store.origin}/d.mp4`, Readable.from([Buffer.from('x')]), 1, {}, { idleTimeoutMs: 100, deadlineMs: 30_000 }).catch((error: unknown) => error);
  const second = await put(`${store.origin}/d.mp4`, Buffer.from('x'));

  expect(first).toMatchObject({ reason: 'timeout' });
  expect(second.status).toBe(200);
});
