import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSafeFetcher } from '#adapters/safe-fetch';
import { webhookSender } from '#adapters/webhook-sender';

/**
 * A webhook attempt's outcome in the words a delivery's `last_error` shows, against real
 * servers on 127.0.0.1 (loopback allowed, as on the local stack).
 */
/** Only the timeout's own test waits this little; the others have room for a loaded machine. */
const SHORT_TIMEOUT_MS = 300;
const TIMEOUT_MS = 10_000;
const fetcher = (options: { allowLoopback: boolean; timeoutMs?: number; lookup?: (host: string) => Promise<string[]> }) =>
  createSafeFetcher({ allowedOrigins: [], maxBytes: 1024, timeoutMs: TIMEOUT_MS, ...options });
const send = webhookSender(fetcher({ allowLoopback: true }), TIMEOUT_MS);

const servers: http.Server[] = [];
const sockets = new Set<import('node:net').Socket>();
async function serve(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  server.on('connection', (socket) => sockets.add(socket));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
}
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

it('hands back the status of any answer (the use case words it)', async () => {
  const url = await serve((_request, response) => response.writeHead(500).end('no'));
  await expect(send(url, '{}', {})).resolves.toEqual({ status: 500 });
});

it('says "connection refused" when nothing listens', async () => {
  const url = await serve(() => undefined);
  await new Promise((resolve) => servers.pop()!.close(resolve));
  await expect(send(url, '{}', {})).resolves.toEqual({ error: 'connection refused' });
});

it('says "timeout after N s" when the receiver does not answer in time', async () => {
  const url = await serve(() => undefined); // accepts and never answers
  const impatient = webhookSender(fetcher({ allowLoopback: true, timeoutMs: SHORT_TIMEOUT_MS }), SHORT_TIMEOUT_MS);
  await expect(impatient(url, '{}', {})).resolves.toEqual({ error: `timeout after ${SHORT_TIMEOUT_MS / 1000} s` });
});

it('says "connection reset" when the receiver hangs up', async () => {
  const url = await serve((request) => request.socket.destroy());
  await expect(send(url, '{}', {})).resolves.toEqual({ error: 'connection reset' });
});

it('says "TLS handshake failed" for https to a server that does not speak TLS', async () => {
  const url = await serve((_request, response) => response.end('plain'));
  await expect(send(url.replace('http:', 'https:'), '{}', {})).resolves.toEqual({ error: 'TLS handshake failed' });
});

it('says "blocked: private address" for a host that resolves privately, and never connects', async () => {
  let connected = false;
  const url = await serve((_request, response) => {
    connected = true;
    response.end();
  });
  const port = new URL(url).port;
  const privateDns = webhookSender(fetcher({ allowLoopback: false, lookup: async () => ['10.0.0.1'] }), TIMEOUT_MS);
  await expect(privateDns(`https://hooks.example.com:${port}/x`, '{}', {})).resolves.toEqual({ error: 'blocked: private address' });
  const loopbackRefused = webhookSender(fetcher({ allowLoopback: false }), TIMEOUT_MS);
  await expect(loopbackRefused(url, '{}', {})).resolves.toEqual({ error: 'blocked: private address' });
  expect(connected).toBe(false);
});

it('says "host name not found" when DNS has no answer', async () => {
  const noDns = webhookSender(
    fetcher({ allowLoopback: false, lookup: async () => Promise.reject(Object.assign(new Error('nope'), { code: 'ENOTFOUND' })) }),
    TIMEOUT_MS,
  );
  await expect(noDns('https://nowhere.example/x', '{}', {})).resolves.toEqual({ error: 'host name not found' });
});
