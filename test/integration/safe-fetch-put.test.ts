/**
 * safe-fetch's `put`: the streamed PUT of a delivery to a customer's presigned URL, against a
 * real HTTP server on 127.0.0.1 (design-35 §3.2).
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createSafeFetcher, FetchFailedError, type PutLimits, UnsafeUrlError } from '#adapters/safe-fetch';
import { pollUntil } from '#test-support/wait';

const LIMITS: PutLimits = { idleTimeoutMs: 5000, deadlineMs: 30_000 };
const MIB = 1024 * 1024;

interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  bytes: number;
  sha256: string;
  complete: boolean;
}

/** A store on 127.0.0.1: each path answers its own way; `received` is what came in. */
async function startStore() {
  const state = { connections: 0, received: [] as Received[], bytesNow: 0 };
  const server = http.createServer();
  const answer = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://store').pathname;
    const record: Received = { method: req.method ?? '', path, headers: req.headers, bytes: 0, sha256: '', complete: false };
    state.received.push(record);
    if (path === '/stalled-reader') return void req.pause(); // never reads, never answers
    const hash = createHash('sha256');
    state.bytesNow = 0;
    req.on('data', (chunk: Buffer) => {
      record.bytes += chunk.length;
      state.bytesNow = record.bytes;
      hash.update(chunk);
    });
    req.on('end', () => {
      record.complete = true;
      record.sha256 = hash.digest('hex');
      if (path === '/silent') return; // read everything, never answer
      if (path === '/redirect') return void res.writeHead(307, { location: 'http://127.0.0.1:1/elsewhere' }).end();
      if (path === '/busy') {
        res.writeHead(503, { 'retry-after': '120', 'content-type': 'application/xml' });
        return void res.end('<?xml version="1.0"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>');
      }
      res.writeHead(200, { etag: `"${record.sha256.slice(0, 32)}"` }).end();
    });
  };
  server.on('request', answer);
  // A refusal before the body: answered to the Expect header, as S3 does for a bad signature.
  server.on('checkContinue', (req, res) => {
    if (new URL(req.url ?? '/', 'http://store').pathname === '/refuse') {
      state.received.push({ method: req.method ?? '', path: '/refuse', headers: req.headers, bytes: 0, sha256: '', complete: false });
      res.writeHead(403, { 'content-type': 'application/xml' });
      res.end('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SignatureDoesNotMatch</Code><Message>no</Message></Error>');
      return;
    }
    res.writeContinue();
    answer(req, res);
  });
  server.on('connection', () => (state.connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    state,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let store: Awaited<ReturnType<typeof startStore>>;
beforeAll(async () => {
  store = await startStore();
});
afterAll(async () => store?.close());
beforeEach(() => {
  store.state.connections = 0;
  store.state.received = [];
});

const sender = (lookup?: (hostname: string) => Promise<string[]>) =>
  createSafeFetcher({ allowedOrigins: [], allowLoopback: true, maxBytes: 4096, timeoutMs: 5000, ...(lookup ? { lookup } : {}) });

/** `size` bytes made lazily in 64 KiB chunks, recording how far it got and whether it was destroyed. */
function source(size: number, beforeChunk?: (offset: number) => Promise<void>) {
  const info = { produced: 0, destroyed: false };
  const chunk = Buffer.alloc(64 * 1024, 7);
  const stream = Readable.from(
    (async function* () {
      while (info.produced < size) {
        await beforeChunk?.(info.produced);
        const part = chunk.subarray(0, Math.min(chunk.length, size - info.produced));
        info.produced += part.length;
        yield part;
      }
    })(),
  );
  stream.on('close', () => (info.destroyed = !stream.readableEnded));
  return { stream, info };
}

describe('put', () => {
  it('sends the bytes with Content-Length (never chunked), the given headers and no type of its own', async () => {
    const body = Buffer.from('a'.repeat(100_000));
    const result = await sender().put(`${store.origin}/object.mp4?X-Amz-Signature=abc`, Readable.from([body]), body.length, { 'x-ms-blob-type': 'BlockBlob' }, LIMITS);

    expect(result).toEqual({ status: 200, errorCode: undefined, retryAfterSeconds: undefined });
    const [received] = store.state.received;
    expect(received).toMatchObject({ method: 'PUT', path: '/object.mp4', bytes: body.length, complete: true });
    expect(received!.sha256).toBe(createHash('sha256').update(body).digest('hex'));
    expect(received!.headers['content-length']).toBe(String(body.length));
    expect(received!.headers['transfer-encoding']).toBeUndefined();
    expect(received!.headers['content-type']).toBeUndefined();
    expect(received!.headers['x-ms-blob-type']).toBe('BlockBlob');
  });

  it('streams: the store has 512 KiB before the source has made its last MiB', async () => {
    const size = 4 * MIB;
    const { stream } = source(size, async (offset) => {
      // A sender that buffered the whole body first would never get here: the wait times out.
      if (offset === size - MIB) await pollUntil(() => store.state.bytesNow >= 512 * 1024, { timeoutMs: 10_000, what: '512 KiB at the store' });
    });

    const result = await sender().put(`${store.origin}/big.mp4`, stream, size, {}, LIMITS);

    expect(result.status).toBe(200);
    expect(store.state.received[0]).toMatchObject({ bytes: size, complete: true });
    expect(store.state.received[0]!.headers.expect).toBe('100-continue');
  });

  it('refuses a hostname that resolves to a private address at delivery: no connection is made', async () => {
    const { stream, info } = source(1000);
    const lookup = jest.fn(async () => ['10.0.0.1']);

    const error = await sender(lookup)
      .put(`http://store.example.com:${new URL(store.origin).port}/x`, stream, 1000, {}, LIMITS)
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(UnsafeUrlError);
    expect(error).toMatchObject({ reason: 'blocked_address' });
    expect(lookup).toHaveBeenCalledTimes(1);
    expect(store.state.connections).toBe(0);
    await pollUntil(() => info.destroyed || stream.destroyed, { what: 'the source destroyed' });
  });

  it('returns a redirect as the answer and never follows it', async () => {
    const result = await sender().put(`${store.origin}/redirect`, Readable.from([Buffer.from('x')]), 1, {}, LIMITS);

    expect(result.status).toBe(307);
    expect(store.state.received.map((request) => request.path)).toEqual(['/redirect']);
  });

  it('a 403 before the body: the answer and its XML code, the source destroyed, nothing uploaded', async () => {
    const size = 8 * MIB;
    const { stream, info } = source(size);

    const result = await sender().put(`${store.origin}/refuse`, stream, size, {}, LIMITS);

    expect(result).toMatchObject({ status: 403, errorCode: 'SignatureDoesNotMatch' });
    expect(store.state.received[0]!.bytes).toBe(0);
    await pollUntil(() => stream.destroyed, { what: 'the source destroyed' });
    expect(info.produced).toBeLessThan(size);
  });

  it('reads Retry-After and the error code of a 503', async () => {
    const result = await sender().put(`${store.origin}/busy`, Readable.from([Buffer.from('abc')]), 3, {}, LIMITS);

    expect(result).toEqual({ status: 503, errorCode: 'SlowDown', retryAfterSeconds: 120 });
  });

  it('times out a store that stops reading: no progress for the idle limit', async () => {
    const size = 64 * MIB;
    const { stream, info } = source(size);

    const error = await sender()
      .put(`${store.origin}/stalled-reader`, stream, size, {}, { idleTimeoutMs: 500, deadlineMs: 30_000 })
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(FetchFailedError);
    expect(error).toMatchObject({ reason: 'timeout', message: 'timeout: no progress for 500 ms' });
    expect(info.produced).toBeLessThan(size);
    await pollUntil(() => stream.destroyed, { what: 'the source destroyed' });
  });

  it('times out a store that takes the body and never answers', async () => {
    const error = await sender()
      .put(`${store.origin}/silent`, Readable.from([Buffer.from('abc')]), 3, {}, { idleTimeoutMs: 300, deadlineMs: 30_000 })
      .catch((caught: unknown) => caught);

    expect(error).toMatchObject({ reason: 'timeout' });
  });

  it('a refused connection is a network failure naming only the host', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const error = await sender()
      .put(`http://127.0.0.1:${port}/x?X-Amz-Signature=secret`, Readable.from([Buffer.from('abc')]), 3, {}, LIMITS)
      .catch((caught: unknown) => caught);

    expect(error).toMatchObject({ reason: 'network', code: 'ECONNREFUSED' });
    expect((error as Error).message).not.toContain('secret');
  });
});
