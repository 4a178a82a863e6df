import { ValidationError } from '../shared/errors';

/**
 * Your storage (CONTRACT.md, "Your storage"; docs/storage.md): a start may name a presigned PUT
 * URL (S3, R2, GCS) or an Azure SAS URL that takes the output once it is stored, and for a video
 * one for its thumbnail. The URL is a credential: it is stored on the task until the delivery
 * ends, never shown in a view, an event or a log.
 */
export interface Destination {
  url: string;
  /** Extra headers the PUT carries (lower-case names), e.g. `x-ms-blob-type`; at most 10. */
  headers: Readonly<Record<string, string>>;
}

export interface Destinations {
  output: Destination;
  /** Video starts only. */
  thumbnail?: Destination;
}

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Where a delivery stands (the view's `delivery`); absent on a task without a destination. */
export interface Delivery {
  status: DeliveryStatus;
  /** PUT attempts made so far (an attempt counts once, whatever the number of parts it sent). */
  attempts: number;
  /** Why the last attempt did not deliver, in words that never contain the URL. */
  lastError?: string;
  deliveredAt?: string;
  /** When the next attempt is due (pending only). */
  nextAttemptAt?: string;
  /** Until when one worker holds the attempt now being made (pending only). */
  claimedUntil?: string;
  /** The parts already delivered by an earlier attempt (a retry sends only the rest). */
  partsDone?: readonly DeliveryPart[];
  /** Failed, and its `*.delivery_failed` event not published yet (the delivery worker publishes it). */
  eventOwed?: true;
  /** The `*.delivery_failed` event's id, made when the delivery is given up (a repeat publishes the same event). */
  eventId?: string;
}

export type DeliveryPart = 'output' | 'thumbnail';

/** What a start asks for its outputs; each field only when given, so older requests hash as before. */
export interface DeliveryRequest {
  destination?: Destinations;
  /** `keep_output: false`: our copy is deleted once delivered. Absent: kept (the default). */
  keepOutput?: false;
}

/** Judges a destination URL by the rules that need no network (scheme, credentials, literal addresses). */
export interface DestinationUrlPolicy {
  whyRefused(url: string): string | undefined;
}

const MAX_HEADERS = 10;
const MAX_HEADER_NAME = 64;
const MAX_HEADER_VALUE = 2048;
const MAX_HEADERS_BYTES = 8192;
/** RFC 9110 §5.6.2 token. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Printable ASCII and tabs: no CR, LF, NUL or anything outside ASCII. */
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;
/** The connection's own headers, and credentials we do not store (presign the URL instead). */
const FORBIDDEN = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'te', 'trailer', 'upgrade', 'expect', 'authorization', 'cookie']);

/**
 * 400 naming the field for a destination we would refuse to PUT to: part of validation, before
 * any charge. Host names are resolved at each delivery attempt instead (DNS may answer otherwise
 * an hour later), where a private address fails the delivery.
 */
export function checkDestinations(policy: DestinationUrlPolicy, request: { kind: 'video' | 'image' } & DeliveryRequest): void {
  const { destination } = request;
  if (request.keepOutput === false && !destination) {
    throw new ValidationError('keep_output: false needs an output_destination (otherwise the output would be kept nowhere).', 'keep_output');
  }
  if (!destination) return;
  if (destination.thumbnail && request.kind === 'image') {
    throw new ValidationError('thumbnail_destination: images have no thumbnail; use output_destination.', 'thumbnail_destination');
  }
  checkOne(policy, 'output_destination', destination.output);
  if (destination.thumbnail) checkOne(policy, 'thumbnail_destination', destination.thumbnail);
}

function checkOne(policy: DestinationUrlPolicy, field: string, destination: Destination): void {
  const why = policy.whyRefused(destination.url);
  if (why !== undefined) throw new ValidationError(`${field}.url: ${why}.`, `${field}.url`);
  if (new URL(destination.url).hash !== '') throw new ValidationError(`${field}.url: must not have a #fragment.`, `${field}.url`);
  const names = Object.keys(destination.headers);
  if (names.length > MAX_HEADERS) throw new ValidationError(`${field}.headers: at most ${MAX_HEADERS} headers.`, `${field}.headers`);
  const seen = new Set<string>();
  let bytes = 0;
  for (const name of names) {
    const lower = name.toLowerCase();
    const at = `${field}.headers.${name.slice(0, MAX_HEADER_NAME)}`;
    if (!TOKEN.test(name) || name.length > MAX_HEADER_NAME) throw new ValidationError(`${at}: a header name is 1-${MAX_HEADER_NAME} token characters (RFC 9110).`, at);
    if (FORBIDDEN.has(lower) || lower.startsWith('proxy-')) {
      throw new ValidationError(`${at}: this header is not sent (connection headers are ours; for credentials, presign the URL instead).`, at);
    }
    if (seen.has(lower)) throw new ValidationError(`${at}: given twice (header names are case-insensitive).`, at);
    seen.add(lower);
    const value = destination.headers[name]!;
    if (!HEADER_VALUE.test(value) || value.length > MAX_HEADER_VALUE) {
      throw new ValidationError(`${at}: a value is at most ${MAX_HEADER_VALUE} printable ASCII characters (no CR, LF or NUL).`, at);
    }
    bytes += name.length + value.length;
  }
  if (bytes > MAX_HEADERS_BYTES) throw new ValidationError(`${field}.headers: names and values together are at most ${MAX_HEADERS_BYTES} bytes.`, `${field}.headers`);
}
