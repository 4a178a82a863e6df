import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import type { Config } from '#config';
import { createDb, type Db } from '#adapters/dynamodb/dynamo-client';
import { ensureTable } from '#adapters/dynamodb/ensure-table';

/** The DynamoDB Local endpoint started by the global setup. */
export function testDynamoEndpoint(): string {
  const endpoint = process.env.TEST_DYNAMODB_ENDPOINT;
  if (!endpoint) throw new Error('TEST_DYNAMODB_ENDPOINT is not set: run the tests through jest.');
  return endpoint;
}

export function uniqueTableName(prefix = 'test'): string {
  return `${prefix}-${randomUUID()}`;
}

/** A fresh table of the application's shape, on DynamoDB Local. */
export async function createTestDb(tableName = uniqueTableName()): Promise<Db> {
  const db = createDb({ tableName, region: 'local', endpoint: testDynamoEndpoint() });
  await ensureTable(db);
  return db;
}

export async function dropTestDb(db: Db): Promise<void> {
  await db.doc.send(new DeleteTableCommand({ TableName: db.tableName }));
  db.doc.destroy();
}

/** A complete configuration pointing at the test servers (simulated provider, no delay). */
export function testConfig(tableName: string, overrides: Partial<Config> = {}): Config {
  return {
    tableName,
    region: 'local',
    dynamodbEndpoint: testDynamoEndpoint(),
    authCacheTtlSeconds: 0,
    defaultRateLimit: 60,
    mediaBucket: process.env.TEST_MEDIA_BUCKET ?? 'vidgen-test-media',
    s3Endpoint: process.env.TEST_S3_ENDPOINT,
    publicMediaBaseUrl: 'http://127.0.0.1:1/media',
    outputOrigins: [],
    provider: { name: 'simulated', delaySeconds: 0, concurrency: 0 },
    testModeDelaySeconds: 0,
    simulatedOutputs: 'rendered',
    taskTimeoutSeconds: 1800,
    signupCredits: 0,
    // Retries within a second, to loopback receivers: what the webhook tests watch.
    webhooks: { retrySchedule: [0.2, 0.5, 1], allowLoopback: true },
    submissions: { callbackSilenceSeconds: 120, graceSeconds: 600 },
    circuit: { failureThreshold: 5, coolDownSeconds: 30 },
    ...overrides,
  };
}
