import { oversizeReason } from '#domain/catalogue/image-size';
import { MAX_UPLOAD_BYTES, sniffImageType } from '#domain/catalogue/image-type';
import type { ReferenceUrlPolicy } from '#domain/tasks/ports';
import { isPublicMediaKey } from './s3/media-layout';
import type { ObjectStorage } from './s3/object-storage';
import { createSafeFetcher, FetchFailedError, type SafeFetcher } from './safe-fetch';
import { staticRefusal, UnsafeUrlError } from './url-rules';

/** A reference image could not be had; `reason` says why in words a client can act on. */
export class ReferenceUnavailableError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'ReferenceUnavailableError';
  }
}

const FETCH_TIMEOUT_MS = 10_000;
/** Enough of one of our own files to tell its type and, nearly always, its declared size. */
const HEAD_BYTES = 64 * 1024;
const NO_SUCH_FILE = 'there is no such file in our storage (upload it again)';

/**
 * User-supplied reference images (`image_url`, `images`): which URLs we refuse outright (checked
 * before a request is charged: the URL itself, and for one of our own files its first bytes,
 * so a missing file, a video or an oversized image is refused before the charge; no other
 * network I/O) and reading the others: straight from the bucket when it is one of our own
 * public files, otherwise through the SSRF-safe fetcher (public http(s) targets only, at most
 * 10 MiB in 10 s). An image declaring more than MAX_IMAGE_SIDE pixels per side is refused
 * before anything decodes it.
 */
export class ReferenceImages implements ReferenceUrlPolicy {
  private readonly fetcher: SafeFetcher;

  constructor(
    private readonly storage: ObjectStorage,
    fetcher?: SafeFetcher,
  ) {
    this.fetcher =
      fetcher ??
      createSafeFetcher({
        allowedOrigins: [new URL(storage.publicBaseUrl).origin],
        maxBytes: MAX_UPLOAD_BYTES,
        timeoutMs: FETCH_TIMEOUT_MS,
      });
  }

  async whyRefused(url: string): Promise<string | undefined> {
    const refused = this.refusalOfUrl(url);
    const key = this.storage.keyOf(url);
    if (refused !== undefined || key === undefined) return refused;
    const file = await this.storage.inspect(key, HEAD_BYTES);
    if (!file) return NO_SUCH_FILE;
    if (!sniffImageType(file.head)) {
      return `it is not a JPEG, PNG or WebP image (our file is ${file.contentType ?? 'of another type'})`;
    }
    return oversizeReason(file.head);
  }

  /** The image's bytes; throws ReferenceUnavailableError saying why it cannot be had. */
  async read(url: string): Promise<Buffer> {
    const bytes = await this.readBytes(url);
    const oversize = oversizeReason(bytes);
    if (oversize) throw new ReferenceUnavailableError(oversize);
    return bytes;
  }

  /** What the URL alone tells (no I/O). */
  private refusalOfUrl(url: string): string | undefined {
    if (this.isOurOrigin(url)) {
      const key = this.storage.keyOf(url);
      return key !== undefined && isPublicMediaKey(key)
        ? undefined
        : 'on our media origin only uploaded or generated files can be used (…/uploads/, …/videos/, …/images/)';
    }
    const refusal = staticRefusal(url);
    return refusal && refusalWords(refusal);
  }

  private async readBytes(url: string): Promise<Buffer> {
    const refused = this.refusalOfUrl(url);
    if (refused) throw new ReferenceUnavailableError(refused);
    const key = this.storage.keyOf(url);
    if (key !== undefined) {
      const bytes = await this.storage.getBytes(key);
      if (!bytes) throw new ReferenceUnavailableError(NO_SUCH_FILE);
      return bytes;
    }
    try {
      return (await this.fetcher.fetchBytes(url)).bytes;
    } catch (error) {
      if (error instanceof UnsafeUrlError) throw new ReferenceUnavailableError(fetchRefusalWords(error));
      if (error instanceof FetchFailedError) throw new ReferenceUnavailableError(failureWords(error));
      throw error;
    }
  }

  private isOurOrigin(url: string): boolean {
    try {
      return new URL(url).origin === new URL(this.storage.publicBaseUrl).origin;
    } catch {
      return false;
    }
  }
}

function refusalWords(error: UnsafeUrlError): string {
  switch (error.reason) {
    case 'invalid_url':
    case 'scheme':
      return 'it must be an absolute http(s) URL';
    case 'credentials':
      return 'it must not contain a user name or password';
    case 'blocked_address':
      return 'its host is not a public address (localhost, private, loopback or link-local)';
    case 'too_many_redirects':
      return 'it redirects more than 3 times';
  }
}

/** Refusals only DNS or a redirect can cause (the rest was checked before the task was charged). */
function fetchRefusalWords(error: UnsafeUrlError): string {
  switch (error.reason) {
    case 'blocked_address':
      return 'its host resolves to an address that is not public (private, loopback or link-local)';
    case 'too_many_redirects':
      return 'it redirects more than 3 times';
    default:
      return 'it redirects to a URL we do not fetch (not http(s), or with a user name or password)';
  }
}

function failureWords(error: FetchFailedError): string {
  switch (error.reason) {
    case 'dns':
      return 'its host name could not be resolved';
    case 'network':
      return 'the server could not be reached or broke off the transfer';
    case 'timeout':
      return `the server did not deliver it within ${FETCH_TIMEOUT_MS / 1000} s`;
    case 'status':
      return `the server answered ${error.status}`;
    case 'too_large':
      return 'the file is larger than 10 MiB';
  }
}
