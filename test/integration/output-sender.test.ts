import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { outputSender } from '#adapters/output-sender';
import { createSafeFetcher } from '#adapters/safe-fetch';
import { type FakeStore, startFakeStore } from '#test-support/fake-store';

/** How each answer of a store becomes a delivery outcome (design-35 §3.1): retried or not, in words without the URL. */
const BODY = Buffer.from('the video bytes');
const open = async () => ({ stream: Readable.from([BODY]), size: BODY.length });
const fetcher = (lookup?: (hostname: string) => Promise<string[]>) => createSafeFetcher({ allowedOrigins: [], allowLoopback: true, maxBytes: 4096, timeoutMs: 5000, ...(lookup && { lookup }) });
const sender = (lookup?: (hostname: string) => Promise<string[]>) => outputSender(open, fetcher(lookup), { idleTimeoutMs: 300, maxDeadlineMs: 10_000 });
const to = (url: string) => ({ url, headers: { 'x-ms-blob-type': 'BlockBlob' } });

let store: FakeStore;
beforeAll(async () => {
  store = await startFakeStore();
});
afterAll(async () => store.close());

it.each([
  ['500', { type: 'failed', retryable: true, reason: 'HTTP 500 (InternalError)' }],
  ['503:30', { type: 'failed', retryable: true, reason: 'HTTP 503 (SlowDown)', retryAfterSeconds: 30 }],
  ['408', { type: 'failed', retryable: true, reason: 'HTTP 408 (RequestTimeout)' }],
  ['429', { type: 'failed', retryable: true, reason: 'HTTP 429 (SlowDown)' }],
  ['403:SignatureDoesNotMatch', { type: 'failed', retryable: false, reason: 'HTTP 403 (SignatureDoesNotMatch)' }],
  ['404', { type: 'failed', retryable: false, reason: 'HTTP 404 (NoSuchBucket)' }],
  ['400', { type: 'failed', retryable: false, reason: 'HTTP 400 (InvalidRequest)' }],
  ['hang', { type: 'failed', retryable: true, reason: 'timeout: no progress for 300 ms' }],
  ['200', { type: 'delivered' }],
])('store answer %s -> %j', async (answer, outcome) => {
  store.answer(answer);
  expect(await sender().send(to(`${store.origin}/x.mp4?X-Amz-Signature=secret`), 'videos/x.mp4')).toEqual(outcome);
});

it('forwards the destination headers and Content-Length', async () => {
  store.answer('200');
  await sender().send(to(`${store.origin}/h.mp4`), 'videos/h.mp4');
  expect(store.putsTo('/h.mp4')[0]!.headers).toMatchObject({ 'x-ms-blob-type': 'BlockBlob', 'content-length': String(BODY.length) });
});

it('a redirect is not followed and not retried', async () => {
  const redirecting = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(307, { location: `${store.origin}/elsewhere.mp4` }).end());
  });
  await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
  const { port } = redirecting.address() as AddressInfo;
  try {
    expect(await sender().send(to(`http://127.0.0.1:${port}/r.mp4`), 'videos/r.mp4')).toEqual({ type: 'failed', retryable: false, reason: 'redirect not followed (HTTP 307)' });
    expect(store.putsTo('/elsewhere.mp4')).toEqual([]);
  } finally {
    await new Promise<void>((resolve) => redirecting.close(() => resolve()));
  }
});

it('a host resolving to a private address is blocked at delivery, not retried', async () => {
  expect(await sender(async () => ['10.0.0.1']).send(to('http://store.example.com/x.mp4'), 'videos/x.mp4')).toEqual({ type: 'failed', retryable: false, reason: 'blocked: not a public address' });
});

it('a refused connection is retried', async () => {
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address() as AddressInfo;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  expect(await sender().send(to(`http://127.0.0.1:${port}/x.mp4`), 'videos/x.mp4')).toEqual({ type: 'failed', retryable: true, reason: 'connection refused' });
});
