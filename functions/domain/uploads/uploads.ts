import { randomBytes } from 'node:crypto';
import { NotFoundError, ValidationError } from '../shared/errors';
import { oversizeReason, readDeclaredSize } from '../catalogue/image-size';
import { IMAGE_EXTENSIONS, MAX_UPLOAD_BYTES, sniffImageType, type ImageContentType } from '../catalogue/image-type';
import type { PublishedUpload, UploadPublications, UploadStorage } from './ports';

/**
 * Reference image uploads. The type is decided by the file's bytes (JPEG, PNG or WebP), the
 * size is at most 10 MiB, and the stored object's key is unguessable (128 random bits).
 * Two ways in: POST /upload (multipart, through the API) and a presigned direct upload to the
 * bucket followed by a check (for files larger than a Lambda request can carry).
 */
/** A checked image in our storage, public at `url`. */
export interface StoredImage {
  url: string;
  contentType: ImageContentType;
  size: number;
}

const DIRECT_UPLOAD_EXPIRY_SECONDS = 15 * 60;
/**
 * Enough of the file to recognise every supported format and, but for a JPEG with unusually
 * large metadata, read its declared size; for such a JPEG the whole file is read.
 */
const HEAD_BYTES = 64 * 1024;
const UPLOAD_ID = /^upl_[0-9a-f]{32}$/;

const token = () => randomBytes(16).toString('hex');
const uploadKey = (ext: string) => `uploads/${token()}.${ext}`;
const incomingKey = (accountId: string, uploadId: string) => `incoming/${accountId}/${uploadId}`;

/** The type, from the first bytes; `head` must hold the whole file, or at least its header. */
function checkedType(head: Buffer, size: number) {
  if (size === 0) throw new ValidationError('image: the file is empty.', 'image');
  if (size > MAX_UPLOAD_BYTES) {
    throw new ValidationError(`image: the file is larger than 10 MiB (${MAX_UPLOAD_BYTES} bytes).`, 'image');
  }
  const contentType = sniffImageType(head);
  if (!contentType) {
    throw new ValidationError(
      "image: must be a JPEG, PNG or WebP image (the type is read from the file's content, not its name).",
      'image',
    );
  }
  const oversize = oversizeReason(head);
  if (oversize) throw new ValidationError(`image: ${oversize}. Scale it down and upload it again.`, 'image');
  return contentType;
}

export async function storeUpload(storage: UploadStorage, accountId: string, bytes: Buffer): Promise<StoredImage> {
  const contentType = checkedType(bytes, bytes.length);
  const url = await storage.putPublic(uploadKey(IMAGE_EXTENSIONS[contentType]), bytes, contentType, accountId);
  return { url, contentType, size: bytes.length };
}

/** A presigned form for uploading straight to storage, checked later by `completeDirectUpload`. */
export interface DirectUpload {
  uploadId: string;
  /** POST the fields, then the file as the last form field named `file`, to this URL. */
  uploadUrl: string;
  fields: Record<string, string>;
  maxBytes: number;
  expiresAt: string;
}

export async function createDirectUpload(
  storage: UploadStorage,
  accountId: string,
  /** When the form is made: it expires 15 minutes later. */
  now: Date,
): Promise<DirectUpload> {
  const uploadId = `upl_${token()}`;
  const { url, fields } = await storage.presignUpload(incomingKey(accountId, uploadId), {
    maxBytes: MAX_UPLOAD_BYTES,
    expiresSeconds: DIRECT_UPLOAD_EXPIRY_SECONDS,
  });
  return {
    uploadId,
    uploadUrl: url,
    fields,
    maxBytes: MAX_UPLOAD_BYTES,
    expiresAt: new Date(now.getTime() + DIRECT_UPLOAD_EXPIRY_SECONDS * 1000).toISOString(),
  };
}

export interface CompleteUploadDeps {
  storage: UploadStorage;
  publications: UploadPublications;
  /** Claim and answer times. */
  clock: () => Date;
  /** Real time in ms (what the wait for another completion's answer is paced by). */
  realTime: () => number;
  /** How long a completion that lost the claim waits for the winner's answer (default 10 s). */
  waitMs?: number;
}

/** A claim unanswered this long belongs to a completion that died: another may take it over. */
const CLAIM_STALE_AFTER_SECONDS = 60;
const ANSWER_POLL_MS = 100;

/**
 * Checks a direct upload's stored bytes and, if they are a valid image, publishes it, once:
 * concurrent and repeated completions of one upload all get the first answer (bytes POSTed to
 * the form again after that are dropped, so a published image never changes). A completion
 * that finds neither the upload nor an answer is 404.
 */
export async function completeDirectUpload(
  deps: CompleteUploadDeps,
  accountId: string,
  uploadId: string,
): Promise<StoredImage> {
  const { storage, publications } = deps;
  const now = deps.clock;
  const notFound = new NotFoundError(`No upload "${uploadId}" was received. POST the file to its upload_url first.`);
  if (!UPLOAD_ID.test(uploadId)) throw notFound;
  const key = incomingKey(accountId, uploadId);

  /** The recorded answer, waiting while another completion holds the claim; else 404. */
  const recordedAnswer = async (): Promise<StoredImage> => {
    const deadline = deps.realTime() + (deps.waitMs ?? 10_000);
    for (;;) {
      const record = await publications.get(accountId, uploadId);
      if (record?.answer) return viewOf(record.answer);
      if (!record || deps.realTime() >= deadline) throw notFound;
      await new Promise((resolve) => setTimeout(resolve, ANSWER_POLL_MS));
    }
  };

  const earlier = await publications.get(accountId, uploadId);
  if (earlier?.answer) {
    await storage.remove(key);
    return viewOf(earlier.answer);
  }
  let stored = await storage.inspect(key, HEAD_BYTES);
  // A JPEG's frame header may lie past the first bytes: then the whole file (at most 10 MiB).
  if (stored && stored.head.length < stored.size && stored.size <= MAX_UPLOAD_BYTES && readDeclaredSize(stored.head) === undefined) {
    stored = await storage.inspect(key, stored.size);
  }
  // Gone: a concurrent completion may be publishing it (or has refused it: then 404).
  if (!stored) return recordedAnswer();
  let contentType;
  try {
    contentType = checkedType(stored.head, stored.size);
  } catch (error) {
    await storage.remove(key);
    throw error;
  }
  if (!(await publications.claim(accountId, uploadId, now(), CLAIM_STALE_AFTER_SECONDS))) return recordedAnswer();
  let url;
  try {
    url = await storage.promote(key, uploadKey(IMAGE_EXTENSIONS[contentType]), contentType, accountId);
  } catch (error) {
    await publications.release(accountId, uploadId);
    throw error;
  }
  if (url === undefined) {
    // Only after taking over a stale claim whose holder had moved the file already.
    await publications.release(accountId, uploadId);
    throw notFound;
  }
  const answer: PublishedUpload = { url, contentType, size: stored.size };
  await publications.recordAnswer(accountId, uploadId, answer, now());
  return viewOf(answer);
}

const viewOf = (answer: PublishedUpload): StoredImage => ({ url: answer.url, contentType: answer.contentType, size: answer.size });
