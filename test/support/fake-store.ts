import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A customer's store that takes presigned PUTs, on 127.0.0.1, for testing deliveries. Built from
 * S3's PutObject and error docs:
 * - https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html: `PUT /key` with the
 *   object as the body and its `Content-Length`; 200 with an `ETag` header on success. A body
 *   sent with `Transfer-Encoding: chunked` and no Content-Length is refused (411
 *   `MissingContentLength`), as S3 does.
 * - https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html ("REST error
 *   responses"): errors are `Content-Type: application/xml` with
 *   `<Error><Code>…</Code><Message>…</Message><RequestId>…</RequestId></Error>`; 503 `SlowDown`
 *   may carry `Retry-After`.
 *
 * It answers each PUT with the next of `answers` (then 200 for good):
 * - `500`, `503`, `408`, `429`… : that status with an XML error (`500:InternalError` names the code);
 * - `403` (default code `AccessDenied`), `403:SignatureDoesNotMatch`: refused before the body
 *   when the client asked `Expect: 100-continue` (S3 checks the signature first), else after it;
 * - `slow:MS`: reads the body, then waits MS before the 200 (a store slower than a timeout);
 * - `hang`: reads the body and never answers.
 * Every PUT is recorded (path, headers, size, sha256); stored objects can be read back with GET.
 */
export interface FakeStoreRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The body's size as received (0 when refused before it), and its sha256 when read whole. */
  bytes: number;
  sha256?: string;
  /** The status answered (undefined while hanging). */
  status?: number;
}

export interface FakeStore {
  origin: string;
  /** Every PUT so far, in order. */
  readonly requests: FakeStoreRequest[];
  /** The PUTs to `path` so far. */
  putsTo(path: string): FakeStoreRequest[];
  /** The object stored at `path`, if a PUT succeeded there. */
  object(path: string): Buffer | undefined;
  /** Sets the answers of the next PUTs (replaces those not used yet). */
  answer(...answers: string[]): void;
  close(): Promise<void>;
}

const CODE_OF: Record<number, string> = {
  400: 'InvalidRequest',
  403: 'AccessDenied',
  404: 'NoSuchBucket',
  408: 'RequestTimeout',
  429: 'SlowDown',
  500: 'InternalError',
  503: 'SlowDown',
};

function xmlError(code: string, requestId: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${code}</Message><RequestId>${requestId}</RequestId></Error>`;
}

export async function startFakeStore(options: { answers?: string[]; port?: number; log?: (line: string) => void } = {}): Promise<FakeStore> {
  let answers = [...(options.answers ?? [])];
  const requests: FakeStoreRequest[] = [];
  const objects = new Map<string, Buffer>();
  const timers = new Set<NodeJS.Timeout>();
  let ids = 0;

  const sendError = (res: http.ServerResponse, record: FakeStoreRequest, status: number, code: string, headers: http.OutgoingHttpHeaders = {}) => {
    record.status = status;
    res.writeHead(status, { 'content-type': 'application/xml', 'x-amz-request-id': `R${(ids += 1)}`, ...headers });
    res.end(xmlError(code, `R${ids}`));
    options.log?.(`PUT ${record.path} content-length=${record.headers['content-length'] ?? '-'} bytes=${record.bytes} -> ${status} ${code}`);
  };

  const handle = (req: http.IncomingMessage, res: http.ServerResponse, beforeBody: boolean) => {
    const path = new URL(req.url ?? '/', 'http://store').pathname;
    if (req.method === 'GET') {
      const stored = objects.get(path);
      if (!stored) return void res.writeHead(404, { 'content-type': 'application/xml' }).end(xmlError('NoSuchKey', 'R0'));
      return void res.writeHead(200, { 'content-length': stored.length }).end(stored);
    }
    if (req.method !== 'PUT') return void res.writeHead(405).end();
    const record: FakeStoreRequest = { path, headers: req.headers, bytes: 0 };
    requests.push(record);
    const next = answers.shift() ?? '200';
    const [kind = '200', detail] = next.split(':');
    const status = Number(kind);

    if (req.headers['content-length'] === undefined) return void sendError(res, record, 411, 'MissingContentLength');
    // Refusals S3 makes on the headers alone come before the body when the client waits for 100.
    if (status === 403 && beforeBody) return void sendError(res, record, 403, detail ?? CODE_OF[403]!);
    if (beforeBody) res.writeContinue();

    const hash = createHash('sha256');
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => {
      record.bytes += chunk.length;
      hash.update(chunk);
      chunks.push(chunk);
    });
    req.on('end', () => {
      record.sha256 = hash.digest('hex');
      if (kind === 'hang') return;
      const succeed = () => {
        objects.set(path, Buffer.concat(chunks));
        record.status = 200;
        res.writeHead(200, { etag: `"${record.sha256!.slice(0, 32)}"`, 'x-amz-request-id': `R${(ids += 1)}`, 'content-length': 0 }).end();
        options.log?.(`PUT ${path} content-length=${req.headers['content-length']} bytes=${record.bytes} -> 200`);
      };
      if (kind === 'slow') {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!res.destroyed) succeed();
        }, Number(detail ?? 1000));
        timers.add(timer);
        return;
      }
      if (status >= 200 && status < 300) return succeed();
      const headers = status === 503 || status === 429 ? (detail && /^\d+$/.test(detail) ? { 'retry-after': detail } : {}) : {};
      sendError(res, record, status, detail && !/^\d+$/.test(detail) ? detail : (CODE_OF[status] ?? 'InternalError'), headers);
    });
  };

  const server = http.createServer((req, res) => handle(req, res, false));
  server.on('checkContinue', (req, res) => handle(req, res, true));
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    putsTo: (path) => requests.filter((request) => request.path === path),
    object: (path) => objects.get(path),
    answer(...next) {
      answers = [...next];
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
