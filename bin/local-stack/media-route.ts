import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { pipeline, type Readable } from 'node:stream';
import { isPublicMediaKey } from '#adapters/s3/media-layout';
import type { ObjectStorage } from '#adapters/s3/object-storage';
import { errorEnvelope, type Envelope } from '#contract/envelope';
import { GATEWAY_RESPONSES } from '#contract/gateway-responses';

/**
 * GET /media/<key>: the bucket's objects, public and without a key, as CloudFront serves them
 * on AWS. Passes Range through so browsers can seek in videos.
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
    let object: Awaited<ReturnType<ObjectStorage['open']>>;
    try {
      object = servable ? await storage().open(key, req.headers.range) : undefined;
    } catch (error) {
      if (!isInvalidRange(error)) throw error;
      // Answer with the size (RFC 9110), but only for an object this route would serve.
      const whole = await storage().open(key);
      (whole?.Body as Readable | undefined)?.destroy?.();
      if (!whole?.Body || !isServableMediaType(whole.ContentType)) {
        sendJson(res, 404, GATEWAY_RESPONSES.notFound.body);
        return true;
      }
      sendJson(res, 416, errorEnvelope('validation_error', 'Range: not satisfiable for this object.'), {
        'Content-Range': `bytes */${whole.ContentLength ?? 0}`,
      });
      return true;
    }
    if (!object?.Body || !isServableMediaType(object.ContentType)) {
      (object?.Body as Readable | undefined)?.destroy?.();
      sendJson(res, 404, GATEWAY_RESPONSES.notFound.body);
      return true;
    }
    res.writeHead(object.ContentRange ? 206 : 200, {
      'Content-Type': object.ContentType!,
      ...(object.ContentLength !== undefined && { 'Content-Length': String(object.ContentLength) }),
      ...(object.ContentRange && { 'Content-Range': object.ContentRange }),
      'Accept-Ranges': 'bytes',
      'Cache-Control': 'public, max-age=31536000, immutable',
      ...NOSNIFF,
    });
    if (req.method === 'HEAD') {
      res.end();
      (object.Body as Readable).destroy?.();
      return true;
    }
    pipeline(object.Body as Readable, res, () => undefined); // errors end the response; nothing to report
    return true;
  };
}

/** S3 (and s3rver) refuse a Range beyond the object with InvalidRange (HTTP 416). */
function isInvalidRange(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } } | null;
  return e?.name === 'InvalidRange' || e?.$metadata?.httpStatusCode === 416;
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
