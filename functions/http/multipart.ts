/**
 * Reads the one file a `multipart/form-data` upload carries, from an API Gateway proxy event.
 *
 * Parser: `@fastify/busboy`, the maintained fork of busboy that `@middy/http-multipart-body-parser`
 * also uses. Not `lambda-multipart-parser`: it is unmaintained and pulls busboy 0.3 / dicer 0.3,
 * whose header parsing can crash the process on a crafted body (CVE-2022-24434, denial of service).
 * We call busboy directly instead of through the middy middleware because the middleware buffers
 * every part whatever its size and reports every problem as one bare 415/422; here each problem
 * is a ValidationError naming the field, and parsing stops as soon as the file is over the limit.
 *
 * The body is already in memory (API Gateway delivers it whole), so "stop reading" means: stop
 * feeding it to the parser and stop buffering the file once it passes `maxBytes`.
 *
 * Only the part's bytes are returned; what the bytes are is decided elsewhere, from the bytes
 * (domain/image-type.ts). `filename` and `declaredType` are what the client said, nothing more.
 */
import Busboy, { type BusboyFileStream } from '@fastify/busboy';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { ValidationError } from '#domain/shared/errors';
import { headerValue } from './headers';

export interface UploadedFile {
  /** The client's file name, without any directory part; undefined when it sent an empty one. */
  filename?: string;
  /** The part's own Content-Type; `text/plain` when the part has none (RFC 7578, 4.4). */
  declaredType?: string;
  bytes: Buffer;
}

export interface SingleFileUploadOptions {
  /** Name of the form field that must carry the file, e.g. `image`. */
  field: string;
  maxBytes: number;
}

export type MultipartEvent = Pick<APIGatewayProxyEvent, 'headers' | 'body' | 'isBase64Encoded'>;

/** The parser is fed in slices so that it can be stopped part-way through a large body. */
const SLICE_BYTES = 64 * 1024;
/** RFC 2046: a boundary is 1 to 70 characters. */
const BOUNDARY = /;\s*boundary\s*=\s*(?:"([^"]{1,70})"|([^\s";]{1,70}))\s*(?:;|$)/i;

const CONTENT_TYPE_MESSAGE = 'Content-Type must be multipart/form-data with a boundary';

export async function parseSingleFileUpload(
  event: MultipartEvent,
  options: SingleFileUploadOptions,
): Promise<UploadedFile> {
  const contentType = headerValue(event, 'content-type');
  if (contentType === undefined || !isMultipartWithBoundary(contentType)) {
    throw new ValidationError(CONTENT_TYPE_MESSAGE, 'Content-Type');
  }
  const body = bodyOf(event);
  return parse(body, contentType, options);
}

function parse(body: Buffer, contentType: string, { field, maxBytes }: SingleFileUploadOptions): Promise<UploadedFile> {
  return new Promise<UploadedFile>((resolve, reject) => {
    let settled = false;
    const fail = (error: ValidationError) => {
      if (settled) return;
      settled = true;
      reject(error);
    };

    let parser: ReturnType<typeof Busboy>;
    try {
      parser = Busboy({
        headers: { 'content-type': contentType },
        // A part is a file when it has a filename, whatever its Content-Type says.
        isPartAFile: (_name, _type, filename) => filename !== undefined,
        limits: { fileSize: maxBytes },
      });
    } catch {
      fail(new ValidationError(CONTENT_TYPE_MESSAGE, 'Content-Type'));
      return;
    }

    const malformed = () =>
      fail(new ValidationError('body: the multipart/form-data body is malformed or truncated', 'body'));
    let upload: { filename: string; declaredType: string; chunks: Buffer[]; size: number; ended: boolean } | undefined;
    let files = 0;

    parser.on('file', (name: string, stream: BusboyFileStream, filename: string, _encoding: string, mimeType: string) => {
      files += 1;
      stream.on('error', malformed);
      if (files > 1) {
        stream.resume();
        fail(new ValidationError(`${name}: only one file part is allowed`, name));
        return;
      }
      if (name !== field) {
        // Not ours: discard it. If no part named `field` follows, that is the error reported.
        stream.resume();
        return;
      }
      const current = { filename, declaredType: mimeType, chunks: [] as Buffer[], size: 0, ended: false };
      upload = current;
      stream.on('limit', () => {
        current.chunks = [];
        fail(new ValidationError(`${field}: the file is larger than ${describeSize(maxBytes)}`, field));
      });
      stream.on('data', (chunk: Buffer) => {
        if (settled) return;
        current.chunks.push(chunk);
        current.size += chunk.length;
      });
      stream.on('end', () => {
        current.ended = true;
      });
    });

    parser.on('field', (name: string) => {
      if (name === field) {
        fail(new ValidationError(`${field}: must be a file (a part with a filename), not a text field`, field));
      }
    });

    parser.on('error', malformed);

    parser.on('finish', () => {
      if (settled) return;
      if (upload === undefined) {
        fail(new ValidationError(`${field}: a file part named "${field}" is required`, field));
        return;
      }
      if (!upload.ended) {
        malformed();
        return;
      }
      if (upload.size === 0) {
        fail(new ValidationError(`${field}: the file is empty`, field));
        return;
      }
      settled = true;
      resolve({
        filename: upload.filename === '' ? undefined : upload.filename,
        declaredType: upload.declaredType,
        bytes: Buffer.concat(upload.chunks, upload.size),
      });
    });

    feed(parser, body, () => settled).catch(malformed);
  });
}

/** Writes the body slice by slice, waiting for the parser each time, until done or `stop()`. */
async function feed(parser: NodeJS.WritableStream, body: Buffer, stop: () => boolean): Promise<void> {
  for (let offset = 0; offset < body.length; offset += SLICE_BYTES) {
    if (stop()) return;
    const slice = body.subarray(offset, offset + SLICE_BYTES);
    await new Promise<void>((resolve, reject) => {
      parser.write(slice, (error?: Error | null) => (error ? reject(error) : resolve()));
    });
  }
  if (!stop()) parser.end();
}

function isMultipartWithBoundary(contentType: string): boolean {
  const mediaType = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return mediaType === 'multipart/form-data' && BOUNDARY.test(contentType);
}

/** API Gateway base64-encodes binary media types; anything else arrives as a UTF-8 string. */
function bodyOf(event: MultipartEvent): Buffer {
  if (event.body === null || event.body === undefined) return Buffer.alloc(0);
  return Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
}

/** "10 MiB (10485760 bytes)", or just the bytes when the limit is not a whole number of MiB. */
function describeSize(bytes: number): string {
  const mebibytes = bytes / (1024 * 1024);
  return Number.isInteger(mebibytes) ? `${mebibytes} MiB (${bytes} bytes)` : `${bytes} bytes`;
}
