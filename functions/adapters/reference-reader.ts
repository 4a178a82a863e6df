import { MAX_UPLOAD_BYTES } from '../domain/image-type';
import { createSafeFetcher } from './safe-fetch';
import { isPublicMediaKey } from './s3/media-layout';
import type { ObjectStorage } from './s3/object-storage';

/**
 * Reads a user-supplied reference image: straight from the bucket when it is one of our own
 * uploads, otherwise through the SSRF-safe fetcher (public http(s) targets only, bounded).
 */
export function referenceReader(storage: ObjectStorage): (url: string) => Promise<Buffer> {
  const { fetchBytes } = createSafeFetcher({
    allowedOrigins: [new URL(storage.publicBaseUrl).origin],
    maxBytes: MAX_UPLOAD_BYTES,
    timeoutMs: 10_000,
  });
  return async (url: string): Promise<Buffer> => {
    const key = storage.keyOf(url);
    if (key !== undefined) {
      const bytes = isPublicMediaKey(key) ? await storage.getBytes(key) : undefined;
      if (!bytes) throw new Error('no such file in our storage');
      return bytes;
    }
    return (await fetchBytes(url)).bytes;
  };
}
