import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { apiRequestListener } from '#bin/local-stack/api-server';
import { DYNAMODB_BOUNDS, LOCAL_DYNAMODB_BOUNDS, worstCaseMs } from '#adapters/aws-client-options';
import { createDb } from '#adapters/dynamodb/dynamo-client';
import { ServiceBusyError } from '#domain/shared/errors';

/**
 * Bounded waits: a "DynamoDB" on 127.0.0.1 that accepts connections and never answers. The
 * client gives up within its stated bound, and the API answers a 5xx envelope within it.
 */
let blackHole: net.Server;
let endpoint: string;
const sockets = new Set<net.Socket>();

beforeAll(async () => {
  blackHole = net.createServer((socket) => {
    sockets.add(socket); // read nothing, answer nothing
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(blackHole.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => blackHole.close(resolve));
});

it('a DynamoDB call to a server that never answers fails within the AWS bound', async () => {
  const db = createDb({ tableName: 't', region: 'local', endpoint, bounds: DYNAMODB_BOUNDS });
  const began = Date.now();
  const error = await db.doc.send(new GetCommand({ TableName: 't', Key: { pk: 'a', sk: 'b' } })).catch((caught: unknown) => caught);
  const elapsed = Date.now() - began;
  db.doc.destroy();
  // The SDK's TimeoutError, as the error the API answers 503 (a retry may get past it).
  expect(error).toBeInstanceOf(ServiceBusyError);
  expect(((error as Error).cause as Error).name).toBe('TimeoutError');
  // Every attempt waited its full time limit, and no more than the bound in all.
  expect(elapsed).toBeGreaterThanOrEqual(DYNAMODB_BOUNDS.maxAttempts * DYNAMODB_BOUNDS.requestTimeoutMs!);
  expect(elapsed).toBeLessThan(worstCaseMs(DYNAMODB_BOUNDS));
}, 30_000);

it('the API answers a clean 5xx envelope within the bound when its store never answers', async () => {
  Object.assign(process.env, {
    TABLE_NAME: 'stalled',
    AWS_REGION: 'local',
    DYNAMODB_ENDPOINT: endpoint,
    S3_ENDPOINT: endpoint,
    MEDIA_BUCKET: 'stalled-media',
    PUBLIC_MEDIA_BASE_URL: 'http://127.0.0.1:1/media',
    PROVIDER: 'simulated',
  });
  const server = http.createServer(apiRequestListener({ authCacheTtlSeconds: 0 }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const began = Date.now();
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/credits`, {
      headers: { Authorization: `Bearer vg_live_${'a'.repeat(40)}` },
    });
    const elapsed = Date.now() - began;
    expect(response.status).toBeGreaterThanOrEqual(500);
    expect(await response.json()).toEqual({ data: null, error: { message: expect.any(String), code: expect.any(String) } });
    expect(response.headers.get('x-request-id')).toBeTruthy();
    // The local stack talks to DynamoDB Local with its looser bounds: one call (the key lookup) stalls.
    expect(elapsed).toBeLessThan(worstCaseMs(LOCAL_DYNAMODB_BOUNDS) + 1_000);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}, 60_000);
