/**
 * Fetches user-supplied URLs (reference images) without letting a user reach our own network
 * (SSRF): loopback, private ranges, link-local (including the 169.254.169.254 metadata
 * service), CGNAT, multicast and every other address that is not public unicast.
 *
 * - http and https only, and no user:password in the URL.
 * - The host is resolved once per hop and refused if ANY of its addresses is not public, unless
 *   the URL's origin is one of `allowedOrigins` (our own media base URL, which is loopback on
 *   the local stack). IP literals are checked the same way; the WHATWG URL parser has already
 *   turned forms like http://2130706433/, http://0x7f.1/ or http://[::ffff:7f00:1]/ into
 *   canonical addresses. IPv6 forms that embed an IPv4 address (IPv4-mapped, IPv4-compatible,
 *   NAT64, 6to4) are judged by that IPv4 address.
 * - Redirects are followed by hand, each hop checked like the first, at most `maxRedirects`.
 * - One deadline (`timeoutMs`) covers DNS, connecting, every redirect and the whole body; the
 *   body is streamed and abandoned as soon as it passes `maxBytes` (a declared Content-Length
 *   over the limit is refused before reading).
 *
 * DNS rebinding: a check-then-fetch design resolves twice, and a hostile DNS server can answer
 * the second lookup with 127.0.0.1. Here the connection uses the addresses that were checked:
 * requests go through node:http / node:https with a `lookup` that returns only those addresses,
 * so nothing is resolved again. (Global fetch could do the same only with an undici Agent as
 * `dispatcher`, and undici is not importable on Node 20 without adding it as a dependency; this
 * needs none.) Sockets are not pooled (`agent: false`), so a connection made for one check is
 * never reused for another request. Proxy environment variables are not honoured.
 *
 * The rules that need no network live in url-rules.ts (also used before a request is charged).
 *
 * Errors: `UnsafeUrlError` when we refuse to go there, `FetchFailedError` when we tried and it did
 * not work. Messages name the URL's host and never the addresses it resolved to.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { pipeline, Transform, type Readable } from 'node:stream';
import { bareHostname, isLoopbackAddress, isPublicAddress, parseFetchableUrl as parseTarget, UnsafeUrlError } from './url-rules';

export { isPublicAddress, UnsafeUrlError, type UnsafeUrlReason } from './url-rules';

export type FetchFailureReason = 'dns' | 'network' | 'timeout' | 'status' | 'too_large';

/**
 * We tried to fetch the URL and could not get its bytes. `status` is set for a non-2xx answer;
 * `code` for a network failure, the system's code (ECONNREFUSED, CERT_HAS_EXPIRED...) when known.
 */
export class FetchFailedError extends Error {
  constructor(
    message: string,
    readonly reason: FetchFailureReason,
    readonly status?: number,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'FetchFailedError';
  }
}

export interface SafeFetcherOptions {
  /** Origins fetched even when they resolve to a non-public address, e.g. our media base URL. */
  allowedOrigins: string[];
  maxBytes: number;
  /** For the whole fetch, redirects included. */
  timeoutMs: number;
  /** Default 3. */
  maxRedirects?: number;
  /** Every address a hostname resolves to. Default: node:dns/promises lookup, all addresses. */
  lookup?: (hostname: string) => Promise<string[]>;
  /** Also reach loopback addresses (127.0.0.0/8, ::1): the local stack's webhooks to a developer's machine. */
  allowLoopback?: boolean;
}

/** What a destination answered to a POST (its body is read, bounded, and dropped). */
export interface PostResult {
  status: number;
}

export interface FetchedBytes {
  bytes: Buffer;
  /** The response's Content-Type header, as the server sent it. */
  contentType?: string;
}

export interface SafeFetcher {
  fetchBytes(url: string): Promise<FetchedBytes>;
  /**
   * The same checks, but the body is handed over as a stream (for large files): it errors with
   * FetchFailedError once it passes maxBytes, and is cut when the timeout expires.
   */
  openStream(url: string): Promise<{ stream: Readable; contentType?: string }>;
  /**
   * POSTs `body` with the same address checks. Redirects are never followed: a 3xx is an answer
   * like any other. Rejects only when no answer came (refused, unreachable, timeout).
   */
  post(url: string, body: string, headers: Record<string, string>): Promise<PostResult>;
  /**
   * PUTs `size` bytes of `body` (a customer's presigned URL), streamed with backpressure, with
   * the same address checks made now (not when the URL was given: DNS may answer differently an
   * hour later). Redirects are never followed. Resolves with any answer; rejects with
   * UnsafeUrlError (refused target) or FetchFailedError (dns, network, timeout). `body` is
   * destroyed whenever it was not read to its end.
   */
  put(url: string, body: Readable, size: number, headers: Record<string, string>, limits: PutLimits): Promise<PutResult>;
}

export interface PutLimits {
  /** No byte accepted by the socket (or no answer after the last) for this long: give up. */
  idleTimeoutMs: number;
  /** The whole attempt, lookup to answer. */
  deadlineMs: number;
}

export interface PutResult {
  status: number;
  /** The `<Code>` of an XML error body (S3, R2, GCS's XML API and Azure all send one). */
  errorCode?: string;
  /** A Retry-After header, in seconds from now. */
  retryAfterSeconds?: number;
}

const DEFAULT_MAX_REDIRECTS = 3;
/** Above this, a PUT asks `Expect: 100-continue`, so a refusal costs no upload. */
const EXPECT_CONTINUE_ABOVE = 1024 * 1024;
/** How long a PUT waits for `100 Continue` before sending anyway (curl's default). */
const CONTINUE_WAIT_MS = 1000;
/** How much of an error answer is read for its `<Code>`. */
const ERROR_BODY_BYTES = 4096;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export function createSafeFetcher(options: SafeFetcherOptions): SafeFetcher {
  const allowedOrigins = new Set(options.allowedOrigins.map((origin) => new URL(origin).origin));
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const lookup = options.lookup ?? systemLookup;

  /** The addresses to connect to for `target`, refused unless all are public or the origin is ours. */
  async function checkedAddresses(target: URL, signal: AbortSignal): Promise<string[]> {
    const hostname = bareHostname(target);
    let addresses: string[];
    if (isIP(hostname) !== 0) {
      addresses = [hostname];
    } else {
      try {
        addresses = await abortable(lookup(hostname), signal);
      } catch (error) {
        if (signal.aborted) throw error;
        throw new FetchFailedError(`Could not resolve ${target.host}.`, 'dns');
      }
      if (addresses.length === 0) throw new FetchFailedError(`Could not resolve ${target.host}.`, 'dns');
    }
    const reachable = (address: string) => isPublicAddress(address) || (options.allowLoopback === true && isLoopbackAddress(address));
    if (!allowedOrigins.has(target.origin) && !addresses.every(reachable)) {
      throw new UnsafeUrlError(`Refusing to fetch from ${target.host}: it is not a public address.`, 'blocked_address');
    }
    return addresses;
  }

  /** Follows redirects (each hop checked) to a 2xx response whose declared size is within bounds. */
  async function openWithin(url: string, signal: AbortSignal): Promise<{ response: IncomingMessage; target: URL }> {
    let target = parseTarget(url);
    for (let redirects = 0; ; redirects += 1) {
      const addresses = await checkedAddresses(target, signal);
      const response = await send(target, addresses, signal, { method: 'GET', headers: { accept: 'image/*, */*;q=0.5' } });
      const status = response.statusCode ?? 0;
      const location = response.headers.location;

      if (REDIRECT_STATUSES.has(status) && location !== undefined) {
        response.destroy();
        if (redirects >= maxRedirects) {
          throw new UnsafeUrlError(`Too many redirects from ${target.host} (at most ${maxRedirects}).`, 'too_many_redirects');
        }
        target = parseTarget(location, target);
        continue;
      }
      if (status < 200 || status > 299) {
        response.destroy();
        throw new FetchFailedError(`${target.host} answered with status ${status}.`, 'status', status);
      }
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > options.maxBytes) {
        response.destroy();
        throw tooLarge(target, options.maxBytes);
      }
      return { response, target };
    }
  }

  async function fetchWithin(url: string, signal: AbortSignal): Promise<FetchedBytes> {
    const { response, target } = await openWithin(url, signal);
    const bytes = await readAtMost(response, options.maxBytes, target, signal);
    return { bytes, contentType: response.headers['content-type'] };
  }

  /** Maps anything thrown while fetching to our two error types, with no internal detail. */
  function translated(error: unknown, url: string, signal: AbortSignal): Error {
    if (error instanceof UnsafeUrlError || error instanceof FetchFailedError) return error;
    const host = hostOf(url);
    if (signal.aborted) {
      return new FetchFailedError(`Fetching from ${host} took longer than ${options.timeoutMs} ms.`, 'timeout');
    }
    return new FetchFailedError(`Could not fetch from ${host}.`, 'network', undefined, systemCode(error));
  }

  return {
    async fetchBytes(url: string): Promise<FetchedBytes> {
      const signal = AbortSignal.timeout(options.timeoutMs);
      try {
        return await fetchWithin(url, signal);
      } catch (error) {
        throw translated(error, url, signal);
      }
    },

    async openStream(url: string) {
      const signal = AbortSignal.timeout(options.timeoutMs);
      let opened;
      try {
        opened = await openWithin(url, signal);
      } catch (error) {
        throw translated(error, url, signal);
      }
      const { response, target } = opened;
      let size = 0;
      const limiter = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          size += chunk.length;
          done(size > options.maxBytes ? tooLarge(target, options.maxBytes) : null, chunk);
        },
      });
      const stream = pipeline(response, limiter, (error) => {
        if (error && !limiter.destroyed) limiter.destroy(translated(error, url, signal));
      });
      return { stream, contentType: response.headers['content-type'] };
    },

    async post(url: string, body: string, headers: Record<string, string>): Promise<PostResult> {
      const signal = AbortSignal.timeout(options.timeoutMs);
      try {
        const target = parseTarget(url);
        const addresses = await checkedAddresses(target, signal);
        const response = await send(target, addresses, signal, { method: 'POST', headers, body });
        // Read (a bounded part of) the answer so the exchange completes; its content is not used.
        await readAtMost(response, options.maxBytes, target, signal).catch(() => undefined);
        return { status: response.statusCode ?? 0 };
      } catch (error) {
        throw translated(error, url, signal);
      }
    },

    async put(url, body, size, headers, limits) {
      const deadline = AbortSignal.timeout(limits.deadlineMs);
      const idle = new AbortController();
      const signal = AbortSignal.any([deadline, idle.signal]);
      try {
        const target = parseTarget(url);
        const addresses = await checkedAddresses(target, signal);
        return await streamPut({ target, addresses, signal, idle, body, size, headers, idleTimeoutMs: limits.idleTimeoutMs });
      } catch (error) {
        body.destroy();
        if (error instanceof UnsafeUrlError || error instanceof FetchFailedError) throw error;
        if (idle.signal.aborted) throw new FetchFailedError(`timeout: no progress for ${duration(limits.idleTimeoutMs)}`, 'timeout');
        if (deadline.aborted) throw new FetchFailedError(`timeout after ${duration(limits.deadlineMs)}`, 'timeout');
        throw new FetchFailedError(`Could not send to ${hostOf(url)}.`, 'network', undefined, systemCode(error));
      }
    },
  };
}

interface PutRequest {
  target: URL;
  addresses: string[];
  signal: AbortSignal;
  /** Aborted by the idle timer (so the caller can tell which limit it was). */
  idle: AbortController;
  body: Readable;
  size: number;
  headers: Record<string, string>;
  idleTimeoutMs: number;
}

/**
 * One PUT over a pinned connection. The body goes through `pipeline` (backpressure: memory is a
 * few stream buffers whatever the size); the idle timer restarts on every chunk the request
 * accepts. An answer that comes before the body is sent (a 403 mid-upload) ends the upload.
 */
function streamPut({ target, addresses, signal, idle, body, size, headers, idleTimeoutMs }: PutRequest): Promise<PutResult> {
  const client = target.protocol === 'https:' ? https : http;
  return new Promise<PutResult>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const restartIdle = () => {
      clearTimeout(timer);
      timer = setTimeout(() => idle.abort(), idleTimeoutMs);
    };
    const done = (outcome: () => void) => {
      clearTimeout(timer);
      outcome();
    };
    const expectContinue = size > EXPECT_CONTINUE_ABOVE;
    const request = client.request(target, {
      method: 'PUT',
      agent: false,
      signal,
      lookup: pinnedLookup(addresses),
      headers: { 'user-agent': 'vidgen-api', ...headers, 'content-length': String(size), ...(expectContinue ? { expect: '100-continue' } : {}) },
    });
    let answered = false;
    request.on('error', (error) => {
      if (!answered) done(() => reject(error));
    });
    request.on('response', (response) => {
      answered = true;
      // Whatever of the body is unsent stays unsent: the store has answered.
      body.unpipe();
      body.destroy();
      readErrorCode(response, signal).then(
        (errorCode) => {
          request.destroy();
          done(() => resolve({ status: response.statusCode ?? 0, errorCode, retryAfterSeconds: retryAfterOf(response.headers['retry-after'], response.headers.date) }));
        },
        (error: unknown) => done(() => reject(error)),
      );
    });

    let started = false;
    const start = () => {
      if (started || answered) return;
      started = true;
      restartIdle();
      const progress = new Transform({
        transform(chunk: Buffer, _encoding, next) {
          restartIdle();
          next(null, chunk);
        },
        flush(next) {
          restartIdle(); // now waiting for the answer
          next();
        },
      });
      pipeline(body, progress, request, (error) => {
        if (error && !answered) done(() => reject(error));
      });
    };
    restartIdle();
    if (expectContinue) {
      request.on('continue', start);
      const wait = setTimeout(start, CONTINUE_WAIT_MS);
      request.on('close', () => clearTimeout(wait));
      request.flushHeaders();
    } else {
      start();
    }
  });
}

/** "30 s", or "300 ms" under a whole second. */
const duration = (ms: number): string => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

/** The `<Code>` of an XML error answer's first 4 KiB, when it has a plain one. */
async function readErrorCode(response: IncomingMessage, signal: AbortSignal): Promise<string | undefined> {
  const status = response.statusCode ?? 0;
  if (status >= 200 && status < 300) {
    response.resume();
    return undefined;
  }
  const head = await readHead(response, ERROR_BODY_BYTES, signal);
  return /<Code>([A-Za-z0-9]{1,64})<\/Code>/.exec(head.toString('utf8'))?.[1];
}

/** Up to `bytes` of the answer (an error body's beginning); whatever could be read. */
async function readHead(response: IncomingMessage, bytes: number, signal: AbortSignal): Promise<Buffer> {
  const stopOnAbort = () => response.destroy(new Error('aborted'));
  signal.addEventListener('abort', stopOnAbort, { once: true });
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size >= bytes) break;
    }
  } catch {
    // A cut answer still has its status; the code is a bonus.
  } finally {
    signal.removeEventListener('abort', stopOnAbort);
    response.destroy();
  }
  return Buffer.concat(chunks).subarray(0, bytes);
}

/**
 * Retry-After in seconds (delta-seconds, or an HTTP date measured against the answer's own Date
 * header, so neither clock's skew counts); undefined when absent or unreadable.
 */
function retryAfterOf(header: string | undefined, date: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  const now = date === undefined ? Number.NaN : Date.parse(date);
  return Number.isNaN(at) || Number.isNaN(now) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The `code` of a Node system or TLS error (or of its cause), e.g. ECONNREFUSED. */
function systemCode(error: unknown): string | undefined {
  // Not `instanceof Error`: errors made by Node's core are not instances of a test realm's Error.
  let current = error as { code?: unknown; cause?: unknown } | null | undefined;
  for (let depth = 0; typeof current === 'object' && current !== null && depth < 3; depth += 1) {
    if (typeof current.code === 'string') return current.code;
    current = current.cause as typeof current;
  }
  return undefined;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the URL';
  }
}

/** One request, connected only to `addresses` (nothing is resolved again). */
function send(
  target: URL,
  addresses: string[],
  signal: AbortSignal,
  { method, headers, body }: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string },
): Promise<IncomingMessage> {
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      target,
      {
        method,
        agent: false,
        signal,
        lookup: pinnedLookup(addresses),
        headers: { 'accept-encoding': 'identity', 'user-agent': 'vidgen-api', ...headers },
      },
      resolve,
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** A `lookup` for node:net that answers with addresses already checked, whatever it is asked. */
function pinnedLookup(addresses: string[]): LookupFunction {
  return (_hostname, options, callback) => {
    const family = options.family === 4 || options.family === 6 ? options.family : undefined;
    const usable = family === undefined ? addresses : addresses.filter((address) => isIP(address) === family);
    const answers = (usable.length > 0 ? usable : addresses).map((address) => ({ address, family: isIP(address) }));
    if (options.all) callback(null, answers);
    else callback(null, answers[0]!.address, answers[0]!.family);
  };
}

async function readAtMost(response: IncomingMessage, maxBytes: number, target: URL, signal: AbortSignal): Promise<Buffer> {
  const stopOnAbort = () => response.destroy(new Error('aborted'));
  signal.addEventListener('abort', stopOnAbort, { once: true });
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) throw tooLarge(target, maxBytes);
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks, size);
  } finally {
    signal.removeEventListener('abort', stopOnAbort);
    response.destroy();
  }
}

function tooLarge(target: URL, maxBytes: number): FetchFailedError {
  return new FetchFailedError(`The file at ${target.host} is larger than ${maxBytes} bytes.`, 'too_large');
}

async function systemLookup(hostname: string): Promise<string[]> {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true });
  return answers.map((answer) => answer.address);
}

/** `promise`, or a rejection as soon as `signal` aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
