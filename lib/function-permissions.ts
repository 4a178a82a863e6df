import { MEDIA_PREFIXES as LAYOUT_PREFIXES, PUBLIC_MEDIA_PREFIXES as LAYOUT_PUBLIC_PREFIXES } from '#adapters/s3/media-layout';
import type { MediaAccess, MediaPrefix } from '#spec/needs';

export type { MediaAccess, MediaPrefix, QueryTarget, TableAction } from '#spec/needs';

/**
 * The media bucket's folders (functions/adapters/s3/media-layout.ts owns the layout). Public through
 * the CDN: exactly the layout's PUBLIC_MEDIA_PREFIXES (uploads/, videos/, images/); never
 * incoming/ (unchecked uploads) or provider-sim/ (the simulated provider's job state).
 */
export const MEDIA_PREFIXES = Object.values(LAYOUT_PREFIXES);
export const PUBLIC_MEDIA_PREFIXES: readonly MediaPrefix[] = LAYOUT_PUBLIC_PREFIXES;

/**
 * What `providers: true` adds for the simulated provider (it keeps its jobs and outputs in the
 * bucket): on every stage, since test-mode tasks run on it whatever the stage's provider is.
 */
export const SIMULATED_PROVIDER_MEDIA: MediaAccess = {
  // Its own state and outputs, and reference images from any public prefix of ours (which the
  // start handlers also read, before the charge, to check a reference of our own).
  read: ['provider-sim/', 'uploads/', 'videos/', 'images/'],
  write: ['provider-sim/'],
  listBucket: true,
};

/** What `copiesResults: true` adds: the destinations, and the simulated provider's outputs as a source. */
export const RESULT_COPY_MEDIA: MediaAccess = { write: ['videos/', 'images/'] };
export const SIMULATED_RESULT_SOURCE_MEDIA: MediaAccess = { read: ['provider-sim/'] };
/** What `thumbnails: true` adds: the copied video is read back for its first frame. */
export const THUMBNAIL_SOURCE_MEDIA: MediaAccess = { read: ['videos/'] };

/** Merges media grants, keeping each prefix once per access kind. */
export interface MergedMedia {
  read: MediaPrefix[];
  write: MediaPrefix[];
  delete: MediaPrefix[];
  listBucket: boolean;
}

export function mergeMedia(...grants: (MediaAccess | undefined)[]): MergedMedia {
  const merged: MergedMedia = { read: [], write: [], delete: [], listBucket: false };
  for (const grant of grants) {
    if (!grant) continue;
    for (const kind of ['read', 'write', 'delete'] as const) {
      for (const prefix of grant[kind] ?? []) if (!merged[kind].includes(prefix)) merged[kind].push(prefix);
    }
    merged.listBucket ||= grant.listBucket === true;
  }
  return merged;
}
