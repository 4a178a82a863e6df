import type { ImageContentType } from '../catalogue/image-type';

/** Where uploads are stored and who publishes a direct upload. */

/** Storage for uploaded reference images. */
export interface UploadStorage {
  /** Stores a checked image where the public can read it; returns its public URL. */
  putPublic(key: string, bytes: Buffer, contentType: string, accountId: string): Promise<string>;
  /** A presigned form upload straight to `key`, limited in size and type. */
  presignUpload(key: string, options: { maxBytes: number; expiresSeconds: number }): Promise<{ url: string; fields: Record<string, string> }>;
  /** Size and first bytes of a directly uploaded object, or undefined if it is not there. */
  inspect(key: string, headBytes: number): Promise<{ size: number; head: Buffer } | undefined>;
  /**
   * Copies a checked object to its public key with its content type, then deletes the source;
   * returns the public URL, or undefined when the source is no longer there.
   */
  promote(fromKey: string, toKey: string, contentType: string, accountId: string): Promise<string | undefined>;
  remove(key: string): Promise<void>;
}

/** What a completed direct upload answered (POST /uploads/{id}/complete). */
export interface PublishedUpload {
  url: string;
  contentType: ImageContentType;
  size: number;
}

/**
 * Who publishes a direct upload: exactly one completion claims it, publishes it and records
 * its answer; every other completion of that upload gets the recorded answer.
 */
export interface UploadPublications {
  /** The claim on an upload and, once published, its answer. */
  get(accountId: string, uploadId: string): Promise<{ answer?: PublishedUpload } | undefined>;
  /**
   * True for exactly one caller per upload; false while another holds it or after it was
   * answered. A claim left unanswered for `staleAfterSeconds` (its holder died) can be taken over.
   */
  claim(accountId: string, uploadId: string, now: Date, staleAfterSeconds: number): Promise<boolean>;
  recordAnswer(accountId: string, uploadId: string, answer: PublishedUpload, now: Date): Promise<void>;
  /** Gives a claim up (its holder failed to publish), so a retry can claim again. */
  release(accountId: string, uploadId: string): Promise<void>;
}
