import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { pipeline, Readable } from 'node:stream';
import { cacheControlOf, isPublicMediaKey } from '#adapters/s3/media-layout';
import type { ObjectStorage } from '#adapters/s3/object-storage';
import { errorEnvelope, type Envelope } from '#contract/envelope';
import { GATEWAY_RESPONSES } from '#contract/gateway-responses';
import { byteRange } from './byte-range';

/**
 * GET /media/<key>: the bucket's objects, public and without a key, as CloudFront serves them
 * on AWS. Answers a Range with exactly its bytes, so browsers can seek in videos: the range is
 * resolved here against the object's size (byte-range.ts) and its bytes counted out here, since
 * s3rver answers some ranges wrongly (`bytes=0-0` with the whole file, a suffix `bytes=-N` with
 * the first N+1 bytes).
 *
 * Only raster image and video types are served, with `nosniff`: the bucket is not a trusted
 * source of types (s3rver takes unsigned writes), and this route shares the API's origin, so an
 * object typed text/html or image/svg+xml would run its script there. Anything else is a 404.
 */
export const MEDIA_PATH = '/media/';

const SERVABLE_TYPES = new Set([
  'image/png',
  'image/jpeg',
  'image/webp',
  'image/gif',
  'image/avif',
  'video/mp4',
  'video/webm',
  'video/quicktime',
]);

export const isServableMediaType = (contentType: string | undefined): boolean =>
  SERVABLE_TYPES.has((contentType ?? '').split(';')[0]!.trim().toLowerCase());

const NOSNIFF = { 'X-Content-Type-Options': 'nosniff' } as const;

export function mediaRoute(storage: () => ObjectStorage) {
  return async (req: http.IncomingMessage, res: http.ServerResponse): Promise<boolean> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (!url.pathname.startsWith(MEDIA_PATH)) return false;
    let key = '';
    try {
      key = decodeURIComponent(url.pathname.slice(MEDIA_PATH.length));
    } catch {
      // malformed escape: served as not found below
    }
    // Only what CloudFront would serve: never incoming/ (unchecked direct uploads).
    const servable = (req.method === 'GET' || req.method === 'HEAD') && isPublicMediaKey(key);
    const found = servable ? await storage().describe(key) : undefined;
    if (!found || !isServableMediaType(found.contentType)) {
      sendJson(res, 404, GATEWAY_RESPONSES.notFound.body);
      return true;
    }
    const range = byteRange(req.headers.range, found.size);
    if (range === 'unsatisfiable') {
      sendJson(res, 416, errorEnvelope('validation_error', 'Range: not satisfiable for this object.'), { 'Content-Range': `bytes */${found.size}` });
      return true;
    }
    const length = range ? range.end - range.start + 1 : found.size;
    res.writeHead(range ? 206 : 200, {
      'Content-Type': found.contentType!,
      'Content-Length': String(length),
      ...(range && { 'Content-Range': `bytes ${range.start}-${range.end}/${found.size}` }),
      'Accept-Ranges': 'bytes',
      'Cache-Control': cacheControlOf(key),
      ...NOSNIFF,
    });
    if (req.method === 'HEAD' || length === 0) {
      res.end();
      return true;
    }
    const object = await storage().open(key, range && `bytes=${range.start}-${range.end}`);
    if (!object?.Body) {
      // Removed since it was described: nothing more to send.
      res.destroy();
      return true;
    }
    pipeline(Readable.from(firstBytes(object.Body as Readable, length)), res, () => undefined); // errors end the response; nothing to report
    return true;
  };
}

/** The first `count` bytes of `source`, which is then let go (destroyed) however long it is. */
async function* firstBytes(source: AsyncIterable<Buffer>, count: number): AsyncGenerator<Buffer> {
  let left = count;
  for await (const chunk of source) {
    const part = chunk.subarray(0, left);
    left -= part.length;
    yield part;
    if (left === 0) return;
  }
}

function sendJson(res: http.ServerResponse, status: number, envelope: Envelope, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(envelope);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'X-Request-Id': randomUUID(),
    ...NOSNIFF,
    ...headers,
  });
  res.end(body);
}
