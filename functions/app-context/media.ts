import { createSafeFetcher } from '#adapters/safe-fetch';
import { ObjectStorage } from '#adapters/s3/object-storage';
import { createS3Client } from '#adapters/s3/s3-client';
import type { MediaConfig } from '#config/service';
import type { UploadStorage } from '#domain/uploads/ports';
import { appMediaConfig } from './config';

/** Bounds for copying a provider's result (a 12 s 1080p video is tens of MB). */
const MAX_OUTPUT_BYTES = 1024 ** 3;
const OUTPUT_DOWNLOAD_TIMEOUT_MS = 120_000;

/** The media bucket: uploads, results and the simulated provider's jobs and outputs. */
export function buildMediaStorage(config: MediaConfig): ObjectStorage {
  const s3 = createS3Client({ region: config.region, ...(config.s3Endpoint && { endpoint: config.s3Endpoint }) });
  // Provider outputs are fetched from anywhere public, or from our own media origin.
  const outputs = createSafeFetcher({
    allowedOrigins: [new URL(config.publicMediaBaseUrl).origin, ...config.outputOrigins],
    maxBytes: MAX_OUTPUT_BYTES,
    timeoutMs: OUTPUT_DOWNLOAD_TIMEOUT_MS,
  });
  return new ObjectStorage(s3, config.mediaBucket, config.publicMediaBaseUrl, outputs.openStream);
}

let current: ObjectStorage | undefined;

export function appMediaStorage(): ObjectStorage {
  current ??= buildMediaStorage(appMediaConfig());
  return current;
}

/** The upload endpoints' storage, behind its port. */
export const uploadStorage = (): UploadStorage => appMediaStorage();
