import { readSetting } from '#config/setting';
import { eventsConfig, identityConfig, lifecycleConfig, mediaConfig, REGION, tableConfig, thumbnailsConfig, webhookConfig } from '#config/service';

/**
 * The settings each part of the wiring reads, each group read from the environment on its
 * part's first use and kept for the cold start. By part, not by function: a function's
 * environment holds only what the parts it uses read (the stack gives it what its spec needs),
 * and the local stack runs every handler in one process with every setting.
 */
function once<T>(read: () => T): () => T {
  let value: { read: T } | undefined;
  return () => (value ??= { read: read() }).read;
}

export const appRegion = once(() => readSetting(REGION));
export const appTableConfig = once(() => tableConfig());
export const appMediaConfig = once(() => mediaConfig());
export const appIdentityConfig = once(() => identityConfig());
export const appEventsConfig = once(() => eventsConfig());
export const appWebhookConfig = once(() => webhookConfig());
/** What the task lifecycle reads besides the providers (no table, bucket or identity: their parts read those). */
export const appLifecycleConfig = once(() => lifecycleConfig());
/** The copy worker's ffmpeg. */
export const appThumbnailsConfig = once(() => thumbnailsConfig());
