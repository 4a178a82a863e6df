import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDynamoDbLocal } from '#bin/local-stack/dynamodb-local';
import { startS3Local } from '#bin/local-stack/s3-local';
import { freePort } from '#bin/local-stack/wait-for-port';

/**
 * Starts one in-memory DynamoDB Local and one s3rver for the whole run, on free loopback
 * ports. Workers inherit the endpoints through the environment; each test file makes its own
 * table and bucket names, so files never share state.
 */
export default async function globalSetup(): Promise<void> {
  const host = '127.0.0.1';
  const dynamo = await startDynamoDbLocal({ host, port: await freePort(host) });
  const s3 = await startS3Local({
    host,
    port: await freePort(host),
    directory: mkdtempSync(path.join(os.tmpdir(), 'vidgen-s3-')),
    buckets: ['vidgen-test-media'],
  });
  process.env.TEST_DYNAMODB_ENDPOINT = dynamo.endpoint;
  process.env.TEST_S3_ENDPOINT = s3.endpoint;
  process.env.TEST_MEDIA_BUCKET = 'vidgen-test-media';
  (globalThis as Record<string, unknown>).__localServers = [dynamo, s3];
}
