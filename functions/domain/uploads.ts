import { randomBytes } from 'node:crypto';
import { NotFoundError, ValidationError } from './errors';
import { IMAGE_EXTENSIONS, MAX_UPLOAD_BYTES, sniffImageType, type ImageContentType } from './image-type';
import type { UploadStorage } from './ports';

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
/** Enough of the file to recognise every supported format. */
const SNIFF_BYTES = 64;
const UPLOAD_ID = /^upl_[0-9a-f]{32}$/;

const token = () => randomBytes(16).toString('hex');
const uploadKey = (ext: string) => `uploads/${token()}.${ext}`;
const incomingKey = (accountId: string, uploadId: string) => `incoming/${accountId}/${uploadId}`;

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
  now = new Date(),
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

/** Checks a direct upload's stored bytes and, if they are a valid image, publishes it. */
export async function completeDirectUpload(
  storage: UploadStorage,
  accountId: string,
  uploadId: string,
): Promise<StoredImage> {
  const notFound = new NotFoundError(`No upload "${uploadId}" was received. POST the file to its upload_url first.`);
  if (!UPLOAD_ID.test(uploadId)) throw notFound;
  const key = incomingKey(accountId, uploadId);
  const stored = await storage.inspect(key, SNIFF_BYTES);
  if (!stored) throw notFound;
  let contentType;
  try {
    contentType = checkedType(stored.head, stored.size);
  } catch (error) {
    await storage.remove(key);
    throw error;
  }
  const url = await storage.promote(key, uploadKey(IMAGE_EXTENSIONS[contentType]), contentType, accountId);
  return { url, contentType, size: stored.size };
}
