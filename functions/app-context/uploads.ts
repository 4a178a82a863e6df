import type { CompleteUploadDeps } from '#domain/uploads/uploads';
import { uploadStorage } from './media';
import { stores } from './stores';

/** The direct upload endpoints' dependencies: the media bucket, the publication records, real time. */
export function directUploads(): CompleteUploadDeps {
  return { storage: uploadStorage(), publications: stores().uploadPublications, clock: () => new Date(), realTime: Date.now };
}
