import { createReadStream, existsSync, statSync } from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { errorEnvelope } from '#contract/envelope';
import { consoleHeaders, type ConsoleOrigins } from '#lib/console-security';

/**
 * GET /console/…: the built console, as CloudFront serves it on AWS: its files, index.html for
 * any other path under /console/ (the app routes itself), the same security headers, and
 * /console/config.json written from this stack's own addresses.
 */
export const CONSOLE_PATH = '/console/';

/** /console/config.json (the console's src/config.ts reads it). */
export interface ConsoleRuntimeConfig {
  apiBaseUrl: string;
  publicApiUrl: string;
  identityEndpoint: string;
  userPoolClientId: string;
  region: string;
}

export interface ConsoleRouteOptions {
  /** The build to serve; a failed build leaves this undefined and the route explains. */
  dir: () => string | undefined;
  config: () => ConsoleRuntimeConfig;
  origins: () => ConsoleOrigins;
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

export function consoleRoute(options: ConsoleRouteOptions) {
  return async (req: http.IncomingMessage, res: http.ServerResponse): Promise<boolean> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/console') {
      res.writeHead(308, { Location: CONSOLE_PATH });
      res.end();
      return true;
    }
    if (!url.pathname.startsWith(CONSOLE_PATH)) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    req.resume();
    const headers = consoleHeaders(options.origins());
    const dir = options.dir();
    if (!dir) {
      res.writeHead(503, { ...headers, 'Content-Type': 'text/plain; charset=utf-8', 'Retry-After': '5' });
      res.end('The console has not been built: see the local stack\'s log for the build error.\n');
      return true;
    }
    const relative = url.pathname.slice(CONSOLE_PATH.length);
    if (relative === 'config.json') {
      const body = JSON.stringify(options.config());
      res.writeHead(200, { ...headers, 'Content-Type': TYPES['.json']!, 'Cache-Control': 'no-store', 'Content-Length': String(Buffer.byteLength(body)) });
      res.end(req.method === 'HEAD' ? undefined : body);
      return true;
    }
    let decoded: string;
    try {
      decoded = decodeURIComponent(relative);
    } catch {
      const body = JSON.stringify(errorEnvelope('validation_error', `path: "${url.pathname}" is not valid percent-encoding.`));
      res.writeHead(400, { ...headers, 'Content-Type': TYPES['.json']!, 'Content-Length': String(Buffer.byteLength(body)) });
      res.end(req.method === 'HEAD' ? undefined : body);
      return true;
    }
    let file = path.join(dir, path.normalize(decoded).replace(/^(\.\.(\/|\\|$))+/, ''));
    const isFile = file.startsWith(dir + path.sep) && existsSync(file) && statSync(file).isFile();
    if (!isFile) {
      // A missing asset is a 404; any other path is one of the app's pages.
      if (relative.startsWith('assets/')) {
        res.writeHead(404, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' });
        res.end('Not found\n');
        return true;
      }
      file = path.join(dir, 'index.html');
    }
    const hashed = relative.startsWith('assets/');
    res.writeHead(200, {
      ...headers,
      'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream',
      'Content-Length': String(statSync(file).size),
      // Asset names carry their content hash; index.html must be read fresh to find new ones.
      'Cache-Control': hashed ? 'public, max-age=31536000, immutable' : 'no-cache',
    });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
    return true;
  };
}
