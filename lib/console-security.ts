/**
 * The console's security headers, one definition for CloudFront's response headers policy
 * (lib/constructs/console-site.ts) and the local stack's console route, so what a developer runs
 * is what the browser enforces on AWS.
 */
export interface ConsoleOrigins {
  /** Where the console's fetches go besides its own origin: the identity endpoint, the API when elsewhere. */
  connect: readonly string[];
  /** Where generated media (thumbnails, videos, images) is served from, besides the console's origin. */
  media: readonly string[];
}

/** Scripts and styles only from the console's own files: no inline code, no eval. */
export function consoleContentSecurityPolicy(origins: ConsoleOrigins): string {
  const list = (extra: readonly string[]) => ["'self'", ...extra].join(' ');
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src ${list(['data:', 'blob:', ...origins.media])}`,
    `media-src ${list(['blob:', ...origins.media])}`,
    `connect-src ${list(origins.connect)}`,
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The other headers, as CloudFront's policy sets them. */
export const CONSOLE_HEADERS = {
  strictTransportSecurity: { maxAgeSeconds: 63_072_000, includeSubdomains: true, preload: false },
  referrerPolicy: 'strict-origin-when-cross-origin',
  frameOptions: 'DENY',
} as const;

/** All of them as plain HTTP headers (the local stack; HSTS is ignored by browsers over http). */
export function consoleHeaders(origins: ConsoleOrigins): Record<string, string> {
  const hsts = CONSOLE_HEADERS.strictTransportSecurity;
  return {
    'Content-Security-Policy': consoleContentSecurityPolicy(origins),
    'Strict-Transport-Security': `max-age=${hsts.maxAgeSeconds}${hsts.includeSubdomains ? '; includeSubDomains' : ''}`,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': CONSOLE_HEADERS.frameOptions,
    'Referrer-Policy': CONSOLE_HEADERS.referrerPolicy,
  };
}
