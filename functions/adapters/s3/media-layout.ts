/**
 * Where things live in the media bucket, and which prefixes the public (CloudFront on AWS,
 * /media on the local stack) may serve. Nothing under `incoming/` is public: a direct upload
 * only becomes reachable after its bytes were checked and it was moved under `uploads/`.
 * The key scheme of each object (unguessable names) is decided by its writer.
 */
export const MEDIA_PREFIXES = {
  uploads: 'uploads/',
  incoming: 'incoming/',
  videos: 'videos/',
  images: 'images/',
  /** The simulated provider's job state and outputs: private, copied server-side. */
  simulatedProvider: 'provider-sim/',
} as const;

/** Where the simulated provider leaves its outputs. */
export const SIMULATED_OUTPUT_PREFIX = `${MEDIA_PREFIXES.simulatedProvider}outputs/`;

/**
 * The only objects of our own a provider output may name: the folders where providers that write
 * into our bucket leave their results (never uploads, incoming files, job state or other results).
 */
export const PROVIDER_OUTPUT_PREFIXES: readonly string[] = [SIMULATED_OUTPUT_PREFIX];

export const PUBLIC_MEDIA_PREFIXES = [MEDIA_PREFIXES.uploads, MEDIA_PREFIXES.videos, MEDIA_PREFIXES.images] as const;

/**
 * A key made of plain segments: no empty, `.` or `..` segment, no backslash or control
 * character. Anything else could be resolved by a store (s3rver joins keys into file paths)
 * to an object outside the prefix it seems to be under.
 */
export function isSafeKey(key: string): boolean {
  if (key.length === 0 || key.length > 1024 || /[\\\u0000-\u001f]/.test(key)) return false;
  return key.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

export const isPublicMediaKey = (key: string): boolean =>
  isSafeKey(key) && PUBLIC_MEDIA_PREFIXES.some((prefix) => key.startsWith(prefix));

/**
 * How long a cache may keep a result (videos/, images/): they can be deleted (DELETE, retention),
 * and their old URLs must answer 404 within 5 minutes, edge and regional caches stacked
 * (docs/decisions.md, "Old URLs after a deletion"). Uploads are never deleted by a customer: cached for good.
 */
export const OUTPUT_CACHE_CONTROL = 'public, max-age=120';
export const UPLOAD_CACHE_CONTROL = 'public, max-age=31536000, immutable';
/** A task's result (or thumbnail): deletable, so cached briefly. */
export const isOutputKey = (key: string): boolean => key.startsWith(MEDIA_PREFIXES.videos) || key.startsWith(MEDIA_PREFIXES.images);
export const cacheControlOf = (key: string): string => (isOutputKey(key) ? OUTPUT_CACHE_CONTROL : UPLOAD_CACHE_CONTROL);
/** The CDN's cap on how long it keeps a result, in seconds (the same figure as OUTPUT_CACHE_CONTROL). */
export const OUTPUT_CACHE_SECONDS = 120;
