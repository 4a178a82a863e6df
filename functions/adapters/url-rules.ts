/**
 * The rules for user-supplied URLs that need no network: scheme, credentials, localhost names
 * and IP literals. Pure functions, so a request can be refused before anything is charged
 * (functions/adapters/reference-images.ts); safe-fetch.ts applies the same rules at fetch time,
 * together with those that need DNS (every resolved address must be public).
 */
import { isIP } from 'node:net';

export type UnsafeUrlReason = 'invalid_url' | 'scheme' | 'credentials' | 'blocked_address' | 'too_many_redirects';
/** We refuse to fetch this URL (or a URL it redirected to). */
export class UnsafeUrlError extends Error {
  constructor(
    message: string,
    readonly reason: UnsafeUrlReason,
  ) {
    super(message);
    this.name = 'UnsafeUrlError';
  }
}

/** `url` (resolved against `base`) as a URL we may fetch: http(s) and no credentials. */
export function parseFetchableUrl(url: string, base?: URL): URL {
  let target: URL;
  try {
    target = new URL(url, base);
  } catch {
    throw new UnsafeUrlError('The URL is not a valid absolute URL.', 'invalid_url');
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    throw new UnsafeUrlError(`Only http and https URLs can be fetched (${target.host || 'no host'}).`, 'scheme');
  }
  if (target.username !== '' || target.password !== '') {
    throw new UnsafeUrlError(`URLs with credentials are not fetched (${target.host}).`, 'credentials');
  }
  return target;
}

/** The hostname without the brackets of an IPv6 literal. */
export function bareHostname(target: URL): string {
  return target.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** 127.0.0.0/8 and ::1 (and IPv4-mapped loopback): reachable only where the local stack allows it. */
export function isLoopbackAddress(address: string): boolean {
  const ip = address.split('%', 1)[0]!;
  if (isIP(ip) === 4) return ip.startsWith('127.');
  if (isIP(ip) === 6) {
    const words = ipv6Words(ip);
    if (words.slice(0, 7).every((word) => word === 0) && words[7] === 1) return true;
    return words.slice(0, 5).every((word) => word === 0) && words[5] === 0xffff && words[6]! >>> 8 === 127;
  }
  return false;
}

/**
 * True only for public unicast addresses. Anything that does not parse as an IP address is not
 * public, so a surprising lookup answer is refused rather than trusted.
 */
export function isPublicAddress(address: string): boolean {
  const ip = address.split('%', 1)[0]!;
  switch (isIP(ip)) {
    case 4:
      return isPublicIpv4(ipv4Octets(ip));
    case 6:
      return isPublicIpv6(ipv6Words(ip));
    default:
      return false;
  }
}

/** IPv4 ranges that are not public (RFC 6890 special-purpose registry), as [address, prefix]. */
const IPV4_NOT_PUBLIC: ReadonlyArray<[string, number]> = [
  ['0.0.0.0', 8], // "this network", including the unspecified 0.0.0.0
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, including the 169.254.169.254 metadata service
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, including the broadcast 255.255.255.255
];
const IPV4_BLOCKS = IPV4_NOT_PUBLIC.map(([base, prefix]) => ({ base: toUint32(ipv4Octets(base)), prefix }));

function isPublicIpv4(octets: number[]): boolean {
  const value = toUint32(octets);
  return !IPV4_BLOCKS.some(({ base, prefix }) => (value ^ base) >>> (32 - prefix) === 0);
}

/**
 * Public IPv6 is global unicast (2000::/3) minus its special-purpose blocks. Forms that carry an
 * IPv4 address are judged by it. Everything outside 2000::/3 (::, ::1, fc00::/7, fe80::/10,
 * fec0::/10, ff00::/8, 100::/64...) is not public.
 */
function isPublicIpv6(words: number[]): boolean {
  const [w0, w1, w2, w3, w4, w5] = words as [number, number, number, number, number, number];
  const embedded = (high: number, low: number) => [high >>> 8, high & 0xff, low >>> 8, low & 0xff];
  const upperZero = w0 === 0 && w1 === 0 && w2 === 0 && w3 === 0 && w4 === 0;

  // ::ffff:a.b.c.d (IPv4-mapped) and ::a.b.c.d (IPv4-compatible, deprecated).
  if (upperZero && (w5 === 0xffff || w5 === 0)) return isPublicIpv4(embedded(words[6]!, words[7]!));
  // 64:ff9b::a.b.c.d, the well-known NAT64 prefix.
  if (w0 === 0x64 && w1 === 0xff9b && w2 === 0 && w3 === 0 && w4 === 0 && w5 === 0) {
    return isPublicIpv4(embedded(words[6]!, words[7]!));
  }
  // 2002:aabb:ccdd::/48, 6to4 for the IPv4 address aa.bb.cc.dd.
  if (w0 === 0x2002) return isPublicIpv4(embedded(w1, w2));

  if (w0 >>> 13 !== 0b001) return false; // outside 2000::/3
  if (w0 === 0x2001 && w1 === 0x0db8) return false; // documentation
  // 2001::/23, IETF protocol assignments: Teredo (which hides an arbitrary IPv4 address),
  // benchmarking, ORCHID and a few anycast services; no image host lives there.
  if (w0 === 0x2001 && (w1 & 0xfe00) === 0) return false;
  if (w0 === 0x3fff && w1 >>> 12 === 0) return false; // documentation (3fff::/20)
  return true;
}

function ipv4Octets(ip: string): number[] {
  return ip.split('.').map(Number);
}

function toUint32(octets: number[]): number {
  return ((octets[0]! << 24) | (octets[1]! << 16) | (octets[2]! << 8) | octets[3]!) >>> 0;
}

/** The eight 16-bit words of a valid IPv6 address (as checked by isIP). */
function ipv6Words(ip: string): number[] {
  let text = ip.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((word) => Number.parseInt(word, 16)));
  const headWords = parse(head);
  if (tail === undefined) return headWords;
  const tailWords = parse(tail);
  return [...headWords, ...Array<number>(8 - headWords.length - tailWords.length).fill(0), ...tailWords];
}

/** The host as DNS sees it: lower case, no IPv6 brackets, no trailing root dot (`localhost.`). */
function normalizedHost(target: URL): string {
  return bareHostname(target).toLowerCase().replace(/\.$/, '');
}

/** A localhost name (RFC 6761: always loopback, whatever DNS says). */
function isLocalhostName(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost');
}

/** A localhost name or a loopback IP literal: what the local stack's loopback allowance covers. */
export function isLoopbackHost(target: URL): boolean {
  const hostname = normalizedHost(target);
  return isLocalhostName(hostname) || (isIP(hostname) !== 0 && isLoopbackAddress(hostname));
}

/**
 * Why we would refuse to fetch `url` whatever DNS answers, or undefined: not http(s), credentials,
 * a localhost name (RFC 6761: always loopback) or an IP literal that is not public. An allowed
 * origin (our media base URL, loopback on the local stack) is the caller's exception to make.
 */
export function staticRefusal(url: string): UnsafeUrlError | undefined {
  let target: URL;
  try {
    target = parseFetchableUrl(url);
  } catch (error) {
    if (error instanceof UnsafeUrlError) return error;
    throw error;
  }
  const hostname = normalizedHost(target);
  if (isLocalhostName(hostname) || (isIP(hostname) !== 0 && !isPublicAddress(hostname))) {
    return new UnsafeUrlError(`Refusing to fetch from ${target.host}: it is not a public address.`, 'blocked_address');
  }
  return undefined;
}
