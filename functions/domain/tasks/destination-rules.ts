import { ValidationError } from '../shared/errors';
import type { DeliveryRequest, Destination } from './destinations';

/*
 * The start's checks of a destination (CONTRACT.md, "Your storage"), apart from the types in
 * destinations.ts so that what only reads tasks (the authorizer's stores) does not bundle them.
 */

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
