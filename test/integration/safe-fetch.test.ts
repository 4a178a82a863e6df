import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createSafeFetcher,
  FetchFailedError,
  isPublicAddress,
  type SafeFetcherOptions,
  UnsafeUrlError,
} from '#adapters/safe-fetch';
import { pollUntil } from '#test-support/wait';

const MAX_BYTES = 4096;
const IMAGE = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
/** Generous, so that a loaded machine never times out a test that expects an answer. */
const TIMEOUT_MS = 5000;
/** For the timeout tests: the server's slow answers take SLOW_MS. */
const SHORT_TIMEOUT_MS = 300;
const SLOW_MS = 3000;

interface TestServer {
  origin: string;
  port: number;
  /** Connections accepted and requests seen ("METHOD path host"), since the last reset. */
  connections: number;
  requests: string[];
  /** Whether the last oversized streamed answer was written to its end. */
  streamedToEnd: boolean;
  /** Whether the last oversized streamed answer is over (its end written, or the client gone). */
  readonly streamClosed: boolean;
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1, port 0, with the routes the tests need. */
async function startServer(): Promise<TestServer> {
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, action: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      action();
    }, ms);
    timers.add(timer);
  };
  const state = { connections: 0, requests: [] as string[], streamedToEnd: false, streamClosed: false };

  const server = http.createServer((req, res) => {
    state.requests.push(`${req.method} ${req.url} ${req.headers.host}`);
    const url = new URL(req.url ?? '/', 'http://placeholder');
    const send = (status: number, headers: http.OutgoingHttpHeaders, body?: Buffer | string) => {
      res.writeHead(status, headers);
      res.end(body);
    };

    switch (url.pathname) {
      case '/image.png':
        return send(200, { 'content-type': 'image/png', 'content-length': IMAGE.length }, IMAGE);
      case '/no-type':
        return send(200, {}, 'bytes');
      case '/exact':
        return send(200, { 'content-type': 'image/png' }, Buffer.alloc(MAX_BYTES, 1));
      case '/exact-chunked':
        res.writeHead(200, { 'content-type': 'image/png' });
        res.write(Buffer.alloc(MAX_BYTES - 10, 1));
        return res.end(Buffer.alloc(10, 1));
      case '/declared-too-large':
        // Only the header says it is too large: the body stalls, so only a header check can tell.
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': MAX_BYTES + 1 });
        res.write(Buffer.alloc(10));
        return later(SLOW_MS, () => res.end(Buffer.alloc(MAX_BYTES + 1 - 10)));
      case '/streamed-too-large': {
        // No Content-Length: chunked, 64 x 1 KiB, a little at a time.
        state.streamedToEnd = false;
        state.streamClosed = false;
        res.on('close', () => (state.streamClosed = true));
        res.writeHead(200, { 'content-type': 'image/png' });
        let sent = 0;
        const next = () => {
          if (res.destroyed) return;
          if (sent === 64) {
            state.streamedToEnd = true;
            res.end();
            return;
          }
          sent += 1;
          res.write(Buffer.alloc(1024, 2));
          later(5, next);
        };
        return next();
      }
      case '/cut-short':
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': 100 });
        res.write(Buffer.alloc(10));
        return later(20, () => res.destroy());
      case '/missing':
        return send(404, { 'content-type': 'text/plain' }, 'not here');
      case '/broken':
        return send(500, { 'content-type': 'text/plain' }, 'internal details: db=10.0.0.7');
      case '/redirect':
        return send(Number(url.searchParams.get('status') ?? 302), { location: url.searchParams.get('to') ?? '' });
      case '/redirect-without-location':
        return send(302, {});
      case '/relative-redirect':
        return send(301, { location: 'image.png' });
      case '/loop':
        return send(302, { location: '/loop' });
      case '/chain': {
        const left = Number(url.searchParams.get('left'));
        return left > 0 ? send(307, { location: `/chain?left=${left - 1}` }) : send(200, {}, 'end of chain');
      }
      case '/slow-headers':
        return later(SLOW_MS, () => send(200, {}, IMAGE));
      case '/slow-body':
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': IMAGE.length });
        res.write(IMAGE.subarray(0, 4));
        return later(SLOW_MS, () => res.end(IMAGE.subarray(4)));
      default:
        return send(404, {}, 'unknown route');
    }
  });
  server.on('connection', () => {
    state.connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    get connections() {
      return state.connections;
    },
    set connections(value: number) {
      state.connections = value;
    },
    get requests() {
      return state.requests;
    },
    set requests(value: string[]) {
      state.requests = value;
    },
    get streamedToEnd() {
      return state.streamedToEnd;
    },
    set streamedToEnd(value: boolean) {
      state.streamedToEnd = value;
    },
    get streamClosed() {
      return state.streamClosed;
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Resolves to what the fetch rejected with; fails the test if it resolved. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  const outcome = await promise.then(
    () => ({ rejected: false as const }),
    (error: unknown) => ({ rejected: true as const, error }),
  );
  expect(outcome.rejected).toBe(true);
  return outcome.rejected ? outcome.error : undefined;
}

let ours: TestServer;
let theirs: TestServer;

beforeAll(async () => {
  [ours, theirs] = await Promise.all([startServer(), startServer()]);
});

afterAll(async () => {
  await Promise.all([ours?.close(), theirs?.close()]);
});

beforeEach(() => {
  noLookup.mockClear();
  for (const server of [ours, theirs]) {
    server.connections = 0;
    server.requests = [];
  }
});

/** A lookup that must not be called (IP literals and refused schemes never reach DNS). */
const noLookup = jest.fn(async (hostname: string): Promise<string[]> => {
  throw new Error(`lookup(${hostname}) should not have been called`);
});

function fetcher(overrides: Partial<SafeFetcherOptions> = {}) {
  return createSafeFetcher({
    allowedOrigins: [ours.origin],
    maxBytes: MAX_BYTES,
    timeoutMs: TIMEOUT_MS,
    lookup: noLookup,
    ...overrides,
  });
}

/** A lookup answering `addresses` for every name, recording what it was asked. */
function lookupAnswering(...addresses: string[]) {
  return jest.fn(async (_hostname: string) => addresses);
}

describe('allowed origins', () => {
  it('fetches from an allowed origin, even on loopback', async () => {
    const result = await fetcher().fetchBytes(`${ours.origin}/image.png`);

    expect(result).toEqual({ bytes: IMAGE, contentType: 'image/png' });
    expect(ours.requests).toEqual([`GET /image.png 127.0.0.1:${ours.port}`]);
  });

  it('matches the allowed origin however it was written', async () => {
    const result = await fetcher({ allowedOrigins: [`HTTP://127.0.0.1:${ours.port}/media/base/`] }).fetchBytes(
      `${ours.origin}/image.png`,
    );

    expect(result.bytes).toEqual(IMAGE);
  });

  it('has no contentType when the server sends none', async () => {
    const result = await fetcher().fetchBytes(`${ours.origin}/no-type`);

    expect(result.contentType).toBeUndefined();
    expect(result.bytes.toString()).toBe('bytes');
  });

  it('connects to the address it resolved and checked, without resolving again (DNS rebinding)', async () => {
    // media.test only exists in this lookup, so the connection can only have used its answer;
    // a second resolution would have been counted (and answered with a private address).
    const answers = [['127.0.0.1'], ['10.9.9.9']];
    const lookup = jest.fn(async (_hostname: string) => answers.shift() ?? []);
    const origin = `http://media.test:${ours.port}`;

    const result = await fetcher({ allowedOrigins: [origin], lookup }).fetchBytes(`${origin}/image.png`);

    expect(result.bytes).toEqual(IMAGE);
    expect(lookup.mock.calls).toEqual([['media.test']]);
    expect(ours.requests).toEqual([`GET /image.png media.test:${ours.port}`]);
  });

  it('resolves and checks every hop again: one lookup per hop', async () => {
    const lookup = lookupAnswering('127.0.0.1');
    const origin = `http://media.test:${ours.port}`;

    await fetcher({ allowedOrigins: [origin], lookup }).fetchBytes(`${origin}/chain?left=2`);

    expect(lookup).toHaveBeenCalledTimes(3);
    expect(ours.requests).toHaveLength(3);
  });

  it('follows a relative redirect within the allowed origin', async () => {
    const result = await fetcher().fetchBytes(`${ours.origin}/relative-redirect`);

    expect(result.bytes).toEqual(IMAGE);
    expect(ours.requests.map((line) => line.split(' ')[1])).toEqual(['/relative-redirect', '/image.png']);
  });

  it.each([301, 302, 303, 307, 308])('follows a %i redirect', async (status) => {
    const to = encodeURIComponent(`${ours.origin}/image.png`);

    const result = await fetcher().fetchBytes(`${ours.origin}/redirect?status=${status}&to=${to}`);

    expect(result.bytes).toEqual(IMAGE);
  });
});

describe('refused targets: no connection is made', () => {
  it('refuses the same loopback server when its origin is not allowed', async () => {
    const error = await rejection(fetcher({ allowedOrigins: [] }).fetchBytes(`${ours.origin}/image.png`));

    expect(error).toBeInstanceOf(UnsafeUrlError);
    expect((error as UnsafeUrlError).reason).toBe('blocked_address');
    expect(ours.connections).toBe(0);
  });

  it('an allowed origin does not allow other ports or schemes on the same host', async () => {
    await expect(
      fetcher({ allowedOrigins: [`http://127.0.0.1:${ours.port + 1}`] }).fetchBytes(`${ours.origin}/image.png`),
    ).rejects.toBeInstanceOf(UnsafeUrlError);
    await expect(
      fetcher({ allowedOrigins: [`https://127.0.0.1:${ours.port}`] }).fetchBytes(`${ours.origin}/image.png`),
    ).rejects.toBeInstanceOf(UnsafeUrlError);
    expect(ours.connections).toBe(0);
  });

  it.each([
    ['a private address', ['10.0.0.5']],
    ['the cloud metadata address', ['169.254.169.254']],
    ['IPv6 loopback', ['::1']],
    ['IPv4-mapped IPv6 loopback', ['::ffff:127.0.0.1']],
    ['IPv4 loopback', ['127.0.0.1']],
    ['CGNAT', ['100.64.1.1']],
    ['a public address and a private one', ['93.184.215.14', '192.168.1.10']],
    ['a public IPv6 address and a unique local one', ['2606:4700:4700::1111', 'fd00::1']],
    ['something that is not an address', ['not-an-ip']],
  ])('refuses a public-looking hostname that resolves to %s', async (_name, addresses) => {
    const lookup = lookupAnswering(...addresses);

    const error = await rejection(fetcher({ lookup }).fetchBytes(`http://images.example.com:${ours.port}/image.png`));

    expect(error).toBeInstanceOf(UnsafeUrlError);
    expect((error as UnsafeUrlError).reason).toBe('blocked_address');
    expect(lookup.mock.calls).toEqual([['images.example.com']]);
    expect(ours.connections).toBe(0);
    // The message names the host, never what it resolved to.
    expect((error as Error).message).toContain(`images.example.com:${ours.port}`);
    for (const address of addresses) expect((error as Error).message).not.toContain(address);
  });

  it('refuses localhost through the system resolver (no lookup injected)', async () => {
    const systemDns = createSafeFetcher({ allowedOrigins: [], maxBytes: MAX_BYTES, timeoutMs: TIMEOUT_MS });

    const error = await rejection(systemDns.fetchBytes(`http://localhost:${ours.port}/image.png`));

    expect(error).toBeInstanceOf(UnsafeUrlError);
    expect(ours.connections).toBe(0);
  });

  describe('IP literals, in every encoding the URL parser accepts', () => {
    const port = () => ours.port;
    const loopbackForms = [
      'http://127.0.0.1:PORT/image.png',
      'http://2130706433:PORT/image.png',
      'http://0x7f000001:PORT/image.png',
      'http://0x7f.1:PORT/image.png',
      'http://0x7f.0x00.0x00.0x01:PORT/image.png',
      'http://0177.0.0.1:PORT/image.png',
      'http://127.000.000.001:PORT/image.png',
      'http://127.1:PORT/image.png',
      'http://127.0.1:PORT/image.png',
      'http://127.255.255.254:PORT/image.png',
      'http://[::1]:PORT/image.png',
      'http://[0:0:0:0:0:0:0:1]:PORT/image.png',
      'http://[::ffff:127.0.0.1]:PORT/image.png',
      'http://[::ffff:7f00:1]:PORT/image.png',
      'http://[::127.0.0.1]:PORT/image.png',
      'http://[64:ff9b::127.0.0.1]:PORT/image.png',
      'http://[2002:7f00:1::]:PORT/image.png',
      'http://0.0.0.0:PORT/image.png',
      'http://0:PORT/image.png',
      'http://[::]:PORT/image.png',
      'https://127.0.0.1:PORT/image.png',
    ];

    it('the URL parser does normalise these (what the check relies on)', () => {
      expect(new URL('http://2130706433/').hostname).toBe('127.0.0.1');
      expect(new URL('http://0x7f.1/').hostname).toBe('127.0.0.1');
      expect(new URL('http://0177.0.0.1/').hostname).toBe('127.0.0.1');
      expect(new URL('http://[::ffff:127.0.0.1]/').hostname).toBe('[::ffff:7f00:1]');
    });

    it.each(loopbackForms)('%s', async (template) => {
      const url = template.replace('PORT', String(port()));

      const error = await rejection(fetcher({ allowedOrigins: [] }).fetchBytes(url));

      expect(error).toBeInstanceOf(UnsafeUrlError);
      expect((error as UnsafeUrlError).reason).toBe('blocked_address');
      expect(noLookup).not.toHaveBeenCalled();
      expect(ours.connections).toBe(0);
    });

    it.each([
      'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
      'http://[fd00:ec2::254]/latest/meta-data/',
      'http://[::ffff:169.254.169.254]/latest/meta-data/',
      'http://0xa9fea9fe/latest/meta-data/',
      'http://10.0.0.1/',
      'http://172.16.0.1/',
      'http://172.31.255.255/',
      'http://192.168.1.1/',
      'http://100.64.0.1/',
      'http://224.0.0.1/',
      'http://255.255.255.255/',
      'http://[fc00::1]/',
      'http://[fe80::1]/',
      'http://[ff02::1]/',
    ])('%s', async (url) => {
      const error = await rejection(fetcher({ allowedOrigins: [] }).fetchBytes(url));

      expect(error).toBeInstanceOf(UnsafeUrlError);
      expect((error as UnsafeUrlError).reason).toBe('blocked_address');
      expect(noLookup).not.toHaveBeenCalled();
    });
  });

  describe('schemes and credentials', () => {
    it.each([
      ['ftp://example.com/image.png', 'scheme'],
      ['file:///etc/passwd', 'scheme'],
      ['data:image/png;base64,iVBORw0KGgo=', 'scheme'],
      ['javascript:alert(1)', 'scheme'],
      ['gopher://127.0.0.1:6379/_INFO', 'scheme'],
      ['http://user:pass@images.example.com/image.png', 'credentials'],
      ['http://user@images.example.com/image.png', 'credentials'],
      ['https://:secret@images.example.com/image.png', 'credentials'],
      ['not a url', 'invalid_url'],
      ['/relative/path.png', 'invalid_url'],
      ['', 'invalid_url'],
    ])('%s -> %s', async (url, reason) => {
      const error = await rejection(fetcher().fetchBytes(url));

      expect(error).toBeInstanceOf(UnsafeUrlError);
      expect((error as UnsafeUrlError).reason).toBe(reason);
      expect(noLookup).not.toHaveBeenCalled();
    });

    it('does not repeat the credentials in its message', async () => {
      const error = await rejection(fetcher().fetchBytes('http://user:hunter2@images.example.com/image.png'));

      expect(error).toBeInstanceOf(UnsafeUrlError);
      expect((error as Error).message).not.toContain('hunter2');
    });
  });
});

describe('redirects', () => {
  const via = (to: string) => `${ours.origin}/redirect?to=${encodeURIComponent(to)}`;

  it('refuses a redirect from an allowed origin to a loopback server that is not allowed', async () => {
    const error = await rejection(fetcher().fetchBytes(via(`${theirs.origin}/image.png`)));

    expect(error).toBeInstanceOf(UnsafeUrlError);
    expect((error as UnsafeUrlError).reason).toBe('blocked_address');
    expect(ours.requests).toHaveLength(1);
    expect(theirs.connections).toBe(0);
  });

  it.each([
    ['the metadata service', 'http://169.254.169.254/latest/meta-data/', 'blocked_address'],
    ['a decimal loopback literal', 'http://2130706433/', 'blocked_address'],
    ['an ftp URL', 'ftp://example.com/image.png', 'scheme'],
    ['a URL with credentials', 'http://user:pass@example.com/image.png', 'credentials'],
  ])('refuses a redirect to %s', async (_name, to, reason) => {
    const error = await rejection(fetcher().fetchBytes(via(to)));

    expect(error).toBeInstanceOf(UnsafeUrlError);
    expect((error as UnsafeUrlError).reason).toBe(reason);
  });

  it('refuses a redirect to a hostname that resolves to a private address', async () => {
    const lookup = lookupAnswering('10.0.0.5');

    const error = await rejection(fetcher({ lookup }).fetchBytes(via(`http://images.example.com:${theirs.port}/image.png`)));

    expect(error).toBeInstanceOf(UnsafeUrlError);
    expect(lookup.mock.calls).toEqual([['images.example.com']]);
  });

  it('follows at most maxRedirects (default 3)', async () => {
    await expect(fetcher().fetchBytes(`${ours.origin}/chain?left=3`)).resolves.toEqual(
      expect.objectContaining({ bytes: Buffer.from('end of chain') }),
    );

    const error = await rejection(fetcher().fetchBytes(`${ours.origin}/chain?left=4`));

    expect(error).toBeInstanceOf(UnsafeUrlError);
    expect((error as UnsafeUrlError).reason).toBe('too_many_redirects');
  });

  it('stops a redirect loop', async () => {
    const error = await rejection(fetcher().fetchBytes(`${ours.origin}/loop`));

    expect(error).toBeInstanceOf(UnsafeUrlError);
    expect((error as UnsafeUrlError).reason).toBe('too_many_redirects');
    expect(ours.requests).toHaveLength(4);
  });

  it('with maxRedirects 0, refuses any redirect', async () => {
    const error = await rejection(fetcher({ maxRedirects: 0 }).fetchBytes(`${ours.origin}/relative-redirect`));

    expect(error).toBeInstanceOf(UnsafeUrlError);
    expect((error as UnsafeUrlError).reason).toBe('too_many_redirects');
  });

  it('treats a redirect without Location as a failed fetch', async () => {
    const error = await rejection(fetcher().fetchBytes(`${ours.origin}/redirect-without-location`));

    expect(error).toBeInstanceOf(FetchFailedError);
    expect((error as FetchFailedError).status).toBe(302);
  });
});

describe('time and size bounds', () => {
  it('times out a server that does not answer', async () => {
    const started = Date.now();

    const error = await rejection(fetcher({ timeoutMs: SHORT_TIMEOUT_MS }).fetchBytes(`${ours.origin}/slow-headers`));

    expect(error).toBeInstanceOf(FetchFailedError);
    expect((error as FetchFailedError).reason).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(SLOW_MS);
  });

  it('times out a body that stalls', async () => {
    const started = Date.now();

    const error = await rejection(fetcher({ timeoutMs: SHORT_TIMEOUT_MS }).fetchBytes(`${ours.origin}/slow-body`));

    expect(error).toBeInstanceOf(FetchFailedError);
    expect((error as FetchFailedError).reason).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(SLOW_MS);
  });

  it('times out a DNS lookup that never answers', async () => {
    const lookup = jest.fn((_hostname: string) => new Promise<string[]>(() => {}));

    const error = await rejection(fetcher({ lookup, timeoutMs: SHORT_TIMEOUT_MS }).fetchBytes('http://images.example.com/'));

    expect(error).toBeInstanceOf(FetchFailedError);
    expect((error as FetchFailedError).reason).toBe('timeout');
  });

  it('accepts a body of exactly maxBytes, with and without Content-Length', async () => {
    expect((await fetcher().fetchBytes(`${ours.origin}/exact`)).bytes).toHaveLength(MAX_BYTES);
    expect((await fetcher().fetchBytes(`${ours.origin}/exact-chunked`)).bytes).toHaveLength(MAX_BYTES);
  });

  it('refuses a declared Content-Length over the limit without waiting for the body', async () => {
    const started = Date.now();

    const error = await rejection(fetcher().fetchBytes(`${ours.origin}/declared-too-large`));

    expect(error).toBeInstanceOf(FetchFailedError);
    expect((error as FetchFailedError).reason).toBe('too_large');
    expect(Date.now() - started).toBeLessThan(SLOW_MS);
  });

  it('stops reading a body without Content-Length once it passes the limit', async () => {
    const error = await rejection(fetcher().fetchBytes(`${ours.origin}/streamed-too-large`));

    expect(error).toBeInstanceOf(FetchFailedError);
    expect((error as FetchFailedError).reason).toBe('too_large');
    // Once the server's answer is over, it writes no more: hung up on before its end, or written to it.
    await pollUntil(() => ours.streamClosed, { what: 'the streamed answer to be over' });
    expect(ours.streamedToEnd).toBe(false);
  });

  it('fails a body cut short by the server', async () => {
    const error = await rejection(fetcher().fetchBytes(`${ours.origin}/cut-short`));

    expect(error).toBeInstanceOf(FetchFailedError);
    expect((error as FetchFailedError).reason).toBe('network');
  });
});

describe('failed fetches', () => {
  it.each([
    ['/missing', 404],
    ['/broken', 500],
  ])('%s -> FetchFailedError with status %i', async (path, status) => {
    const error = await rejection(fetcher().fetchBytes(`${ours.origin}${path}`));

    expect(error).toBeInstanceOf(FetchFailedError);
    expect(error).toMatchObject({ reason: 'status', status });
    expect((error as Error).message).toBe(`127.0.0.1:${ours.port} answered with status ${status}.`);
  });

  it('a refused connection', async () => {
    const origin = `http://127.0.0.1:${await closedPort()}`;

    const error = await rejection(fetcher({ allowedOrigins: [origin] }).fetchBytes(`${origin}/image.png`));

    expect(error).toBeInstanceOf(FetchFailedError);
    expect((error as FetchFailedError).reason).toBe('network');
    expect((error as Error).message).not.toContain('ECONNREFUSED');
  });

  it('a hostname that does not resolve', async () => {
    const lookup = jest.fn(async (hostname: string): Promise<string[]> => {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    });

    const error = await rejection(fetcher({ lookup }).fetchBytes('http://nowhere.example.com/image.png'));

    expect(error).toBeInstanceOf(FetchFailedError);
    expect((error as FetchFailedError).reason).toBe('dns');
    expect((error as Error).message).toBe('Could not resolve nowhere.example.com.');
  });

  it('a hostname that resolves to nothing', async () => {
    const error = await rejection(fetcher({ lookup: lookupAnswering() }).fetchBytes('http://nowhere.example.com/image.png'));

    expect(error).toBeInstanceOf(FetchFailedError);
    expect((error as FetchFailedError).reason).toBe('dns');
  });
});

describe('isPublicAddress', () => {
  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.215.14',
    '9.255.255.255',
    '11.0.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '126.255.255.255',
    '128.0.0.0',
    '169.253.255.255',
    '169.255.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.167.255.255',
    '192.169.0.0',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '::ffff:808:808',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('%s is public', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each([
    '0.0.0.0',
    '0.255.255.255',
    '10.0.0.0',
    '10.255.255.255',
    '100.64.0.0',
    '100.127.255.255',
    '127.0.0.1',
    '127.255.255.255',
    '169.254.0.1',
    '169.254.169.254',
    '172.16.0.0',
    '172.31.255.255',
    '192.0.0.8',
    '192.0.2.1',
    '192.168.0.1',
    '198.18.0.1',
    '198.51.100.7',
    '203.0.113.9',
    '224.0.0.1',
    '239.255.255.250',
    '240.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.5',
    '::ffff:169.254.169.254',
    '::ffff:0.0.0.0',
    '::127.0.0.1',
    '64:ff9b::7f00:1',
    '64:ff9b::a00:5',
    '64:ff9b:1::1',
    '2002:7f00:1::',
    '2002:a9fe:a9fe::1',
    '2001::1',
    '2001:db8::1',
    '3fff::1',
    'fc00::1',
    'fd12:3456:789a::1',
    'fe80::1',
    'fe80::1%eth0',
    'febf:ffff::1',
    'fec0::1',
    'ff02::1',
    'ff0e::1',
    '100::1',
    'not-an-ip',
    '',
    '127.0.0.1.nip.io',
  ])('%s is not public', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
});
