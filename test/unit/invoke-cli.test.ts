import net from 'node:net';
import { isServerErrorResult, localStackHint } from '../../bin/invoke/local-env';
import { freePort } from '../../bin/local-stack/wait-for-port';

/** `npm run invoke` with the local stack down must fail (exit 1) and say why. */
describe('npm run invoke: telling a down local stack from a handler answer', () => {
  it('counts a 5xx proxy result as a failure, a 2xx or 4xx as an answer', () => {
    expect(isServerErrorResult({ statusCode: 500, body: '{}' })).toBe(true);
    expect(isServerErrorResult({ statusCode: 502, body: '{}' })).toBe(true);
    expect(isServerErrorResult({ statusCode: 404, body: '{}' })).toBe(false);
    expect(isServerErrorResult({ principalId: 'acc_1' })).toBe(false);
    expect(isServerErrorResult(null)).toBe(false);
  });

  it('names the local endpoint nothing answers on, with the same hint as the admin CLI', async () => {
    const down = `http://127.0.0.1:${await freePort()}`;
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const up = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    try {
      expect(await localStackHint({ DYNAMODB_ENDPOINT: down, S3_ENDPOINT: up })).toBe(
        `Nothing answers at ${down} (DynamoDB Local). Is the local stack running (npm start)?`,
      );
      expect(await localStackHint({ DYNAMODB_ENDPOINT: up, S3_ENDPOINT: down })).toMatch(/\(s3rver\)\. Is the local stack running \(npm start\)\?$/);
      expect(await localStackHint({ DYNAMODB_ENDPOINT: up, S3_ENDPOINT: up })).toBeUndefined();
      expect(await localStackHint({})).toBeUndefined();
    } finally {
      server.close();
    }
  });
});
