import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { pipeline, type Readable } from 'node:stream';
import { isPublicMediaKey } from '../../functions/adapters/s3/media-layout';
import type { ObjectStorage } from '../../functions/adapters/s3/object-storage';
import { GATEWAY_RESPONSES } from '../../functions/contract/gateway-responses';

/**
 * GET /media/<key>: the bucket's objects, public and without a key, as CloudFront serves them
 * on AWS. Passes Range through so browsers can seek in videos.
 */
export const MEDIA_PATH = '/media/';

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
    const object = servable ? await storage().open(key, req.headers.range) : undefined;
    if (!object?.Body) {
      const body = JSON.stringify(GATEWAY_RESPONSES.notFound.body);
      res.writeHead(404, {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Length': Buffer.byteLength(body),
        'X-Request-Id': randomUUID(),
      });
      res.end(body);
      return true;
    }
    res.writeHead(object.ContentRange ? 206 : 200, {
      'Content-Type': object.ContentType ?? 'application/octet-stream',
      ...(object.ContentLength !== undefined && { 'Content-Length': String(object.ContentLength) }),
      ...(object.ContentRange && { 'Content-Range': object.ContentRange }),
      'Accept-Ranges': 'bytes',
      'Cache-Control': 'public, max-age=31536000, immutable',
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
