import { MEDIA_PREFIXES as LAYOUT_PREFIXES, PUBLIC_MEDIA_PREFIXES as LAYOUT_PUBLIC_PREFIXES } from '#adapters/s3/media-layout';
import { FUNCTION_NEEDS, RATE_LIMITED, type FunctionNeeds, type MediaAccess, type MediaPrefix } from './function-needs';

export type { FunctionNeeds, MediaAccess, MediaPrefix, QueryTarget, TableAction } from './function-needs';

/**
 * What each function may do, keyed by handler name (functions/handlers/<name>.ts), as
 * lib/function-needs.ts declares it; this module turns the needs into what the house construct
 * grants (see `needsOf` for a handler without an entry).
 */
export { FUNCTION_NEEDS };

/**
 * The media bucket's folders (functions/adapters/s3/media-layout.ts owns the layout). Public through
 * the CDN: exactly the layout's PUBLIC_MEDIA_PREFIXES (uploads/, videos/, images/); never
 * incoming/ (unchecked uploads) or provider-sim/ (the simulated provider's job state).
 */
export const MEDIA_PREFIXES = Object.values(LAYOUT_PREFIXES);
export const PUBLIC_MEDIA_PREFIXES: readonly MediaPrefix[] = LAYOUT_PUBLIC_PREFIXES;

/**
 * What `provider: true` adds for the simulated provider (it keeps its jobs and outputs in the
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
/** What `makesThumbnails: true` adds: the copied video is read back for its first frame. */
export const THUMBNAIL_SOURCE_MEDIA: MediaAccess = { read: ['videos/'] };

/**
 * The needs of a handler. A handler without an entry (a route given to the stack without its
 * needs, as tests do) gets the least a function of its kind can do: nothing for a public route, the
 * rate-limit counter for an authenticated one. The stack warns at synth and a CDK test fails
 * until the entry exists, so the default never ships unnoticed.
 */
export function needsOf(handler: string, options: { publicRoute?: boolean } = {}): { needs: FunctionNeeds; declared: boolean } {
  const declared = FUNCTION_NEEDS[handler];
  if (declared) return { needs: declared, declared: true };
  return {
    needs: { purpose: `${handler} (no declared permissions)`, table: { actions: options.publicRoute ? [] : [...RATE_LIMITED] } },
    declared: false,
  };
}

/** Merges media grants, keeping each prefix once per access kind. */
export function mergeMedia(...grants: (MediaAccess | undefined)[]): Required<MediaAccess> {
  const merged: Required<MediaAccess> = { read: [], write: [], delete: [], listBucket: false };
  for (const grant of grants) {
    if (!grant) continue;
    for (const kind of ['read', 'write', 'delete'] as const) {
      for (const prefix of grant[kind] ?? []) if (!merged[kind].includes(prefix)) merged[kind].push(prefix);
    }
    merged.listBucket ||= grant.listBucket === true;
  }
  return merged;
}
