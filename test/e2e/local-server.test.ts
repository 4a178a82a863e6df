import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startLocalStack, type LocalStack } from '#bin/local-stack/stack';
import { canConnectNow, freePort } from '#bin/local-stack/wait-for-port';
import { createAccount, createApiKey } from '#domain/accounts/account-admin';
import { startTestApi } from '#test-support/local-api';
import { testDynamoEndpoint, uniqueTableName } from '#test-support/test-db';

/**
 * The local stack's HTTP server itself: what it answers while starting, what Node would answer
 * outside the envelope, which base URL it publishes, and names that collide with Object.prototype.
 */
jest.setTimeout(60_000);

let stack: LocalStack;
let key: string;

beforeAll(async () => {
  stack = await startTestApi();
  const { account } = await createAccount(stack.context, { credits: 100, paidAccess: true, subscriptionStatus: 'active' });
  key = (await createApiKey(stack.context, account.accountId, { rateLimit: 1000 })).apiKey;
});
afterAll(async () => {
  await stack.stop();
});

/** Sends raw bytes and returns what came back (the server closes after an error answer). */
function rawExchange(port: number, request: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.once('error', reject);
    socket.once('close', () => resolve(received));
    socket.write(request);
    setTimeout(() => socket.destroy(), 10_000).unref();
  });
}

const parseReply = (raw: string) => {
  const [head, body = ''] = raw.split('\r\n\r\n');
  return { statusLine: head!.split('\r\n')[0], head: head!, body: body ? JSON.parse(body) : undefined };
};

describe('requests Node refuses while parsing (clientError)', () => {
  it('answers headers too large with 431 in the envelope', async () => {
    const reply = parseReply(await rawExchange(stack.apiPort, `GET /api/v1/credits HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    expect(reply.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(reply.head).toMatch(/\r\nX-Request-Id: [0-9a-f-]{36}/);
    expect(reply.body).toEqual({ data: null, error: { code: 'validation_error', message: expect.stringMatching(/headers are too large/) } });
  });

  it.each([
    ['a malformed request line', 'GARBAGE\r\n\r\n'],
    ['an invalid header name', 'GET / HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n'],
    ['conflicting framing', 'POST /api/v1/generate HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'],
  ])('answers %s with 400 in the envelope', async (_, request) => {
    const reply = parseReply(await rawExchange(stack.apiPort, request));
    expect(reply.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(reply.body).toEqual({ data: null, error: { code: 'validation_error', message: expect.any(String) } });
  });
});

/** GET with a Host header of the test's choosing (fetch does not let a caller set Host). */
function getWithHost(url: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { Host: host, 'X-Forwarded-Proto': 'https' } }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, body }));
    });
    request.on('error', reject);
  });
}

describe('the published base URL', () => {
  it('is the configured one, whatever Host the client sends', async () => {
    for (const pathname of ['/openapi.json', '/docs']) {
      const { status, body } = await getWithHost(`${stack.baseUrl}${pathname}`, 'evil.test');
      expect({ pathname, status, reflectsHost: body.includes('evil.test'), hasBaseUrl: body.includes(`"${stack.baseUrl}`) }).toEqual({
        pathname,
        status: 200,
        reflectsHost: false,
        hasBaseUrl: true,
      });
    }
    const document = JSON.parse((await getWithHost(`${stack.baseUrl}/openapi.json`, 'evil.test')).body) as { servers: { url: string }[] };
    expect(document.servers.map((server) => server.url)).toEqual([stack.baseUrl]);
  });
});

describe('keep-alive (bug 11: pooled connections "closed by the other side" after idling)', () => {
  it('keeps an idle connection for as long as its Keep-Alive header promises, and closes it after', async () => {
    const socket = net.connect({ host: '127.0.0.1', port: stack.apiPort });
    await new Promise((resolve) => socket.once('connect', resolve));
    let received = '';
    let closedAt = 0;
    let lastDataAt = 0;
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      lastDataAt = Date.now();
    });
    socket.once('close', () => (closedAt = Date.now()));
    const body = '{}';
    const post = `POST /api/v1/generate HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const answered = async (count: number) => {
      while ((received.match(/HTTP\/1\.1 \d{3} /g) ?? []).length < count || !received.endsWith('}')) {
        if (closedAt) throw new Error(`closed early: ${received}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return lastDataAt; // when the answer arrived, not when this 10 ms loop noticed
    };
    socket.write(post);
    await answered(1);
    const promised = Number(/\r\nKeep-Alive: timeout=(\d+)/i.exec(received)?.[1]);
    expect(promised).toBeGreaterThanOrEqual(1);
    // Idle for most of the promise (a client keeps a margin), then reuse the connection for a POST.
    await new Promise((resolve) => setTimeout(resolve, promised * 1000 - 800));
    socket.write(post);
    const secondAnswer = await answered(2);
    expect(received.match(/HTTP\/1\.1 400 /g)).toHaveLength(2);
    while (!closedAt) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(closedAt - secondAnswer).toBeGreaterThanOrEqual(promised * 1000 - 50);
    // Two idle periods of the promise (30 s each) and their answers.
  }, 150_000);
});

describe('the charset of a JSON body', () => {
  const generate = (contentType: string, body: string | Buffer) =>
    fetch(`${stack.baseUrl}/generate`, { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': contentType }, body });
  const credits = async () =>
    ((await (await fetch(`${stack.baseUrl}/credits`, { headers: { Authorization: `Bearer ${key}` } })).json()) as { data: { credits: number } }).data.credits;

  it('refuses anything but UTF-8 with 415 validation_error naming Content-Type, charging nothing', async () => {
    const before = await credits();
    const latin1 = Buffer.from('{"prompt":"café au lait","duration":3}', 'latin1');
    for (const contentType of ['application/json; charset=latin1', 'application/json;charset="ISO-8859-1"', 'application/json; charset=utf-16']) {
      const response = await generate(contentType, latin1);
      expect({ contentType, status: response.status, body: await response.json() }).toEqual({
        contentType,
        status: 415,
        body: { data: null, error: { code: 'validation_error', message: expect.stringMatching(/^Content-Type: charset/) } },
      });
      expect(response.headers.get('x-request-id')).toBeTruthy();
    }
    expect(await credits()).toBe(before);
  });

  it('accepts utf-8 in any spelling or no charset, and still answers a wrong type with 400', async () => {
    for (const contentType of ['application/json', 'application/json; charset=utf-8', 'application/json; charset="UTF-8"', 'application/json;charset=utf8']) {
      const response = await generate(contentType, '{"prompt":"café","duration":3}');
      const body = (await response.json()) as { data: { prompt: string } };
      expect({ contentType, status: response.status, prompt: body.data?.prompt }).toEqual({ contentType, status: 200, prompt: 'café' });
    }
    const wrongType = await generate('text/plain; charset=latin1', '{"prompt":"x"}');
    expect(wrongType.status).toBe(400);
  });
});

describe('names an ordinary object already has', () => {
  it('work as header and query names on routes with a key', async () => {
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const response = await fetch(`${stack.baseUrl}/videos?${encodeURIComponent(name)}=1&page=1`, {
        headers: { Authorization: `Bearer ${key}`, ...(name !== '__proto__' && { [name]: 'x' }) },
      });
      expect({ name, status: response.status }).toEqual({ name, status: 200 });
    }
  });
});

describe('while the stack is starting', () => {
  it('answers 503 in the envelope with Retry-After instead of leaving the request hanging', async () => {
    // DynamoDB behind a gate: the stack listens, then waits on its table until the gate opens (and,
    // since this process's handlers already have their stores, it is held until then explicitly).
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const dynamo = new URL(testDynamoEndpoint());
    const proxy = net.createServer((client) => {
      client.pause();
      void gate.then(() => {
        const upstream = net.connect({ host: dynamo.hostname, port: Number(dynamo.port) });
        client.pipe(upstream).pipe(client);
        client.resume();
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const apiPort = await freePort();
    const starting = startLocalStack(
      {
        host: '127.0.0.1',
        apiPort,
        dynamodbPort: 0,
        s3Port: 0,
        tableName: uniqueTableName('starting'),
        mediaBucket: stack.context.storage.bucket,
        region: 'local',
        dataDir: mkdtempSync(path.join(os.tmpdir(), 'vidgen-starting-')),
        sweepIntervalSeconds: 3600,
      },
      { dynamodbEndpoint: `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`, s3Endpoint: stack.s3Endpoint, holdReady: gate },
    );
    let late: LocalStack | undefined;
    try {
      while (!(await canConnectNow('127.0.0.1', apiPort))) await new Promise((resolve) => setTimeout(resolve, 50));
      const early = await fetch(`http://127.0.0.1:${apiPort}/api/v1/credits`, { signal: AbortSignal.timeout(10_000) });
      expect(early.status).toBe(503);
      expect(early.headers.get('retry-after')).toBe('1');
      expect(early.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(await early.json()).toEqual({ data: null, error: { code: 'internal_error', message: expect.stringMatching(/starting/) } });
      open();
      late = await starting;
      expect((await fetch(`http://127.0.0.1:${apiPort}/api/v1/credits`)).status).toBe(401);
    } finally {
      open();
      await (late ?? (await starting.catch(() => undefined)))?.stop();
      proxy.close();
    }
  });
});
