import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { createDb, type Db } from '../../functions/data/dynamo-client';
import { ensureTable } from '../../functions/data/ensure-table';

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
