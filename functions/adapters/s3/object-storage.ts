import { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import type { MediaStore } from '#domain/tasks/ports';
import type { UploadStorage } from '#domain/uploads/ports';
import { assertMediaKind, MEDIA_SNIFF_BYTES, OutputRefusedError, type MediaKind } from '#domain/catalogue/media-type';
import { isOutputKey, isSafeKey, OUTPUT_CACHE_CONTROL, PROVIDER_OUTPUT_PREFIXES } from './media-layout';

/** Opens a download of a provider's output (SSRF-checked, size-bounded: see safe-fetch.ts). */
export type Downloader = (url: string) => Promise<{ stream: Readable }>;

/**
 * The media bucket: results, uploads and the simulated provider's files. Objects are public
 * through `publicBaseUrl` (the local stack's /media route; CloudFront on AWS).
 */
export class ObjectStorage implements MediaStore, UploadStorage {
  constructor(
    private readonly s3: S3Client,
    readonly bucket: string,
    readonly publicBaseUrl: string,
    private readonly download?: Downloader,
  ) {}

  publicUrl(key: string): string {
    return `${this.publicBaseUrl}/${key.split('/').map(encodeURIComponent).join('/')}`;
  }

  /**
   * The object key behind one of our public URLs, or undefined for any other URL (and for
   * keys with `.`/`..`/empty segments, which a store could resolve outside their prefix).
   */
  keyOf(url: string): string | undefined {
    const prefix = `${this.publicBaseUrl}/`;
    if (!url.startsWith(prefix)) return undefined;
    try {
      const key = url.slice(prefix.length).split('?')[0]!.split('/').map(decodeURIComponent).join('/');
      return isSafeKey(key) ? key : undefined;
    } catch {
      return undefined;
    }
  }

  async put(key: string, body: Buffer | string, contentType: string): Promise<string> {
    await this.s3.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: contentType, ...outputCaching(key) }));
    return this.publicUrl(key);
  }

  /** Streams a file of known length into the bucket. */
  async putStream(key: string, body: Readable, contentLength: number, contentType: string): Promise<string> {
    await this.s3.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentLength: contentLength, ContentType: contentType }),
    );
    return this.publicUrl(key);
  }

  async putPublic(key: string, bytes: Buffer, contentType: string, accountId: string): Promise<string> {
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: bytes,
        ContentType: contentType,
        Metadata: { 'account-id': accountId },
      }),
    );
    return this.publicUrl(key);
  }

  async presignUpload(key: string, options: { maxBytes: number; expiresSeconds: number }) {
    const { url, fields } = await createPresignedPost(this.s3, {
      Bucket: this.bucket,
      Key: key,
      Conditions: [
        ['content-length-range', 1, options.maxBytes],
        ['starts-with', '$Content-Type', 'image/'],
      ],
      Fields: { 'Content-Type': 'image/*' },
      Expires: options.expiresSeconds,
    });
    return { url, fields };
  }

  /** Size, first bytes and stored Content-Type of an object, or undefined if it is not there. */
  async inspect(key: string, headBytes: number): Promise<{ size: number; head: Buffer; contentType?: string } | undefined> {
    let object;
    try {
      object = await this.open(key, `bytes=0-${headBytes - 1}`);
    } catch (error) {
      // No byte range of an empty object is satisfiable (S3 and s3rver answer 416).
      if (!isInvalidRange(error)) throw error;
      const size = await this.sizeOf(key);
      return size === undefined ? undefined : { size, head: Buffer.alloc(0) };
    }
    if (!object?.Body) return undefined;
    // "bytes 0-63/12345" -> 12345; a file shorter than the range comes back whole.
    const total = Number(object.ContentRange?.split('/')[1] ?? NaN);
    if (total === 0) {
      // s3rver answers "bytes 0-0/0" for an empty object, promising a byte it never sends.
      (object.Body as Readable).destroy();
      return { size: 0, head: Buffer.alloc(0) };
    }
    const head = Buffer.from(await object.Body.transformToByteArray());
    return { size: Number.isFinite(total) ? total : head.length, head, ...(object.ContentType && { contentType: object.ContentType }) };
  }

  async promote(fromKey: string, toKey: string, contentType: string, accountId: string): Promise<string | undefined> {
    try {
      await this.s3.send(
        new CopyObjectCommand({
          Bucket: this.bucket,
          Key: toKey,
          CopySource: `${this.bucket}/${fromKey.split('/').map(encodeURIComponent).join('/')}`,
          ContentType: contentType,
          Metadata: { 'account-id': accountId },
          MetadataDirective: 'REPLACE',
        }),
      );
    } catch (error) {
      // The source went away: a concurrent promotion of the same object moved it first.
      if ((error as Error).name === 'NoSuchKey') return undefined;
      throw error;
    }
    await this.remove(fromKey);
    return this.publicUrl(toKey);
  }

  /** The object's size in bytes and stored Content-Type, or undefined if there is none. */
  async describe(key: string): Promise<{ size: number; contentType?: string } | undefined> {
    try {
      const { ContentLength, ContentType } = await this.s3.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: ContentLength ?? 0, ...(ContentType && { contentType: ContentType }) };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  private async sizeOf(key: string): Promise<number | undefined> {
    return (await this.describe(key))?.size;
  }

  async remove(key: string): Promise<void> {
    await this.s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async exists(key: string): Promise<boolean> {
    return (await this.sizeOf(key)) !== undefined;
  }

  async getText(key: string): Promise<string | undefined> {
    try {
      const { Body } = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return Body ? await Body.transformToString() : undefined;
    } catch (error) {
      if ((error as Error).name === 'NoSuchKey') return undefined;
      throw error;
    }
  }

  async getBytes(key: string): Promise<Buffer | undefined> {
    try {
      const { Body } = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return Body ? Buffer.from(await Body.transformToByteArray()) : undefined;
    } catch (error) {
      if ((error as Error).name === 'NoSuchKey') return undefined;
      throw error;
    }
  }

  /**
   * An object streamed for a delivery, with its size from the same GetObject (a presigned PUT
   * needs Content-Length up front; S3 refuses a chunked body).
   */
  async openForDelivery(key: string): Promise<{ stream: Readable; size: number }> {
    const answer = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
    if (!(answer.Body instanceof Readable) || answer.ContentLength === undefined) throw new Error(`Object ${key} came without a stream or a size.`);
    return { stream: answer.Body, size: answer.ContentLength };
  }

  /** For serving objects (the local stack's /media route), with an optional byte range. */
  async open(key: string, range?: string) {
    try {
      return await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, ...(range && { Range: range }) }));
    } catch (error) {
      if ((error as Error).name === 'NoSuchKey') return undefined;
      throw error;
    }
  }

  /**
   * Copies a provider's output into the bucket without holding it in memory: a server-side
   * copy when it is already ours, otherwise an HTTP download streamed into a multipart upload.
   * Of our own objects only a provider's outputs qualify (not uploads, incoming files, job state
   * or other results), and the first bytes must be the media the task makes, or nothing is
   * written (OutputRefusedError).
   */
  async copyFromUrl(sourceUrl: string, key: string, contentType: string, kind: MediaKind): Promise<string> {
    const ownKey = this.keyOf(sourceUrl);
    if (ownKey !== undefined || this.isOwnOrigin(sourceUrl)) {
      if (ownKey === undefined || !PROVIDER_OUTPUT_PREFIXES.some((prefix) => ownKey.startsWith(prefix))) {
        throw new OutputRefusedError(`The output ${sourceUrl.slice(0, 200)} names our own storage outside a provider's output folder.`);
      }
      const stored = await this.inspect(ownKey, MEDIA_SNIFF_BYTES);
      if (!stored) throw new Error(`The output ${sourceUrl.slice(0, 200)} is not in the bucket.`);
      assertMediaKind(stored.head, kind, sourceUrl);
      await this.s3.send(
        new CopyObjectCommand({
          Bucket: this.bucket,
          Key: key,
          CopySource: `${this.bucket}/${ownKey.split('/').map(encodeURIComponent).join('/')}`,
          ContentType: contentType,
          MetadataDirective: 'REPLACE',
          ...outputCaching(key),
        }),
      );
      return this.publicUrl(key);
    }
    if (!this.download) throw new Error('No downloader configured for provider outputs.');
    const { stream } = await this.download(sourceUrl);
    const { head, body } = await peek(stream, MEDIA_SNIFF_BYTES);
    try {
      assertMediaKind(head, kind, sourceUrl);
    } catch (error) {
      stream.destroy();
      throw error;
    }
    const upload = new Upload({
      client: this.s3,
      params: { Bucket: this.bucket, Key: key, Body: body, ContentType: contentType, ...outputCaching(key) },
    });
    await upload.done();
    return this.publicUrl(key);
  }

  /** A URL on our media's origin (the local stack serves its API there too) that may not name an object. */
  private isOwnOrigin(url: string): boolean {
    try {
      return new URL(url).origin === new URL(this.publicBaseUrl).origin;
    } catch {
      return false;
    }
  }
}

/**
 * A result's `Cache-Control` (videos/, images/): a result can be deleted, and CloudFront honours
 * the object's max-age up to its cache policy's (lib/constructs/media-storage.ts), so a cache
 * anywhere lets go of it within two minutes.
 */
const outputCaching = (key: string): { CacheControl?: string } => (isOutputKey(key) ? { CacheControl: OUTPUT_CACHE_CONTROL } : {});

/** Reads at least `bytes` from the start of `stream` (less if it ends first); `body` is the whole stream again. */
async function peek(stream: Readable, bytes: number): Promise<{ head: Buffer; body: Readable }> {
  const iterator: AsyncIterator<Buffer> = stream[Symbol.asyncIterator]();
  const chunks: Buffer[] = [];
  let length = 0;
  let ended = false;
  while (length < bytes) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    chunks.push(next.value);
    length += next.value.length;
  }
  const head = Buffer.concat(chunks);
  async function* whole(): AsyncGenerator<Buffer> {
    if (head.length > 0) yield head;
    if (ended) return;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  return { head, body: Readable.from(whole()) };
}

const statusOf = (error: unknown) => (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;

/** A HEAD of a missing object: no body, so no error code, only the status. */
function isNotFound(error: unknown): boolean {
  return statusOf(error) === 404 || (error as Error).name === 'NotFound';
}

function isInvalidRange(error: unknown): boolean {
  return statusOf(error) === 416 || (error as Error).name === 'InvalidRange';
}
