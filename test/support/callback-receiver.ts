import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CallbackRejectedError, type CallbackRequest } from '#domain/providers/provider';

export interface ReceivedCallback {
  path: string;
  /** The raw body and the lower-case headers, as our public callback route hands them on. */
  request: CallbackRequest;
  /** What the receiver answered. */
  status: number;
}

/**
 * Our side of provider callbacks, on 127.0.0.1: records every POST with its raw body and
 * headers and answers what `answer` says for it (default 204). A test passes an `answer` that
 * calls provider.readCallback, as the public route does.
 */
export async function startCallbackReceiver(options: { answer?: (callback: Omit<ReceivedCallback, 'status'>) => number | Promise<number> } = {}) {
  const received: ReceivedCallback[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name.toLowerCase(), String(value)]));
      const callback = { path: req.url ?? '/', request: { body: Buffer.concat(chunks).toString('utf8'), headers } };
      void Promise.resolve(options.answer?.(callback) ?? 204)
        .catch(() => 500)
        .then((status) => {
          received.push({ ...callback, status });
          res.writeHead(status).end();
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    received,
    /** Resolves once `count` callbacks have arrived that `which` selects (or after `timeoutMs`, with what there is). */
    async waitFor(count: number, which: (callback: ReceivedCallback) => boolean = () => true, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.filter(which).length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      return received.filter(which);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Awaits a CallbackRejectedError from readCallback (failing if it accepts) and answers its reason. */
export async function refusal(promise: Promise<unknown>): Promise<CallbackRejectedError['reason']> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(CallbackRejectedError);
  return (error as CallbackRejectedError).reason;
}
