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

export const PUBLIC_MEDIA_PREFIXES = [MEDIA_PREFIXES.uploads, MEDIA_PREFIXES.videos, MEDIA_PREFIXES.images] as const;

export const isPublicMediaKey = (key: string): boolean => PUBLIC_MEDIA_PREFIXES.some((prefix) => key.startsWith(prefix));
