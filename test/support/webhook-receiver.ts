import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedEvent {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  /** What `standardwebhooks` verified and parsed, or undefined when verification failed. */
  verified?: { id: string; type: string; created_at: string; data: Record<string, unknown> };
  at: number;
}

/**
 * A customer's webhook receiver on 127.0.0.1: verifies each request with the standardwebhooks
 * library (as a customer would) and answers with what `answer` says for that attempt.
 */
export async function startReceiver(options: { answer?: (attempt: number, path: string) => { status: number; headers?: Record<string, string> } } = {}) {
  const received: ReceivedEvent[] = [];
  let secret = '';
  let attempt = 0;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      attempt += 1;
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
      let verified: ReceivedEvent['verified'];
      try {
        verified = new Webhook(secret).verify(body, headers) as ReceivedEvent['verified'];
      } catch {
        verified = undefined;
      }
      received.push({
        id: headers['webhook-id'] ?? '',
        timestamp: headers['webhook-timestamp'] ?? '',
        signature: headers['webhook-signature'] ?? '',
        body,
        verified,
        at: Date.now(),
      });
      const { status, headers: answerHeaders } = options.answer?.(attempt, request.url ?? '/') ?? { status: 200 };
      response.writeHead(status, answerHeaders).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return {
    url,
    received,
    /** The secret the receiver verifies with (known once the endpoint is created). */
    useSecret(value: string) {
      secret = value;
    },
    async waitFor(count: number, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      return received;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
