import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { localTarget } from '#bin/local-stack/discovery';
import { isServerErrorResult, localStackHint } from '#bin/invoke/local-env';
import { freePort } from '#bin/local-stack/wait-for-port';

/** `npm run invoke` with the local stack down must fail (exit 1) and say why. */
describe('npm run invoke: telling a down local stack from a handler answer', () => {
  it('counts a 5xx proxy result as a failure, a 2xx or 4xx as an answer', () => {
    expect(isServerErrorResult({ statusCode: 500, body: '{}' })).toBe(true);
    expect(isServerErrorResult({ statusCode: 502, body: '{}' })).toBe(true);
    expect(isServerErrorResult({ statusCode: 404, body: '{}' })).toBe(false);
    expect(isServerErrorResult({ principalId: 'acc_1' })).toBe(false);
    expect(isServerErrorResult(null)).toBe(false);
  });

  it('names the local endpoint nothing answers on, and which variables would move it', async () => {
    const down = `http://127.0.0.1:${await freePort()}`;
    const target = localTarget({ DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'vidgen-invoke-')) });
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const up = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    try {
      expect(await localStackHint({ DYNAMODB_ENDPOINT: down, S3_ENDPOINT: up }, target)).toBe(
        `Nothing answers at ${down} (DynamoDB Local, the default). Is the local stack running (npm start)? ` +
          'If it runs on other ports, set DYNAMODB_PORT and S3_PORT (or DYNAMODB_ENDPOINT and S3_ENDPOINT) as you gave them to npm start, or DATA_DIR to its data folder.',
      );
      expect(await localStackHint({ DYNAMODB_ENDPOINT: up, S3_ENDPOINT: down }, target)).toMatch(/\(s3rver, the default\)\. Is the local stack running \(npm start\)\?/);
      expect(await localStackHint({ DYNAMODB_ENDPOINT: up, S3_ENDPOINT: up })).toBeUndefined();
      expect(await localStackHint({})).toBeUndefined();
    } finally {
      server.close();
    }
  });
});
