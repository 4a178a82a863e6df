import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '#adapters/dynamodb/dynamo-client';
import { rateWindowKey } from '#adapters/dynamodb/keys';
import { DynamoRateCounter } from '#adapters/dynamodb/rate-counter-repository';
import { consumeRequest, windowAt } from '#domain/accounts/rate-limit';
import { createTestDb, dropTestDb } from '#test-support/test-db';

let db: Db;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(async () => {
  await dropTestDb(db);
});

const NOW = Date.parse('2026-11-21T17:00:10.000Z');

describe('DynamoRateCounter', () => {
  it('admits exactly `limit` of many concurrent requests in one window', async () => {
    const counter = new DynamoRateCounter(db);
    const limit = 25;
    const decisions = await Promise.all(
      Array.from({ length: limit + 15 }, () => consumeRequest(counter, 'key_race', limit, NOW)),
    );
    const allowed = decisions.filter((decision) => decision.allowed);
    expect(allowed).toHaveLength(limit);
    // Every count from 1 to limit was handed out exactly once.
    expect(allowed.map((decision) => decision.remaining).sort((a, b) => a - b)).toEqual(
      Array.from({ length: limit }, (_, i) => i),
    );
    expect(decisions.filter((decision) => !decision.allowed).every((d) => d.remaining === 0 && d.retryAfter === 50)).toBe(
      true,
    );
  });

  it('counts each key and window separately and marks counters to expire', async () => {
    const counter = new DynamoRateCounter(db);
    expect(await counter.increment('key_a', windowAt(NOW), 1)).toBe(1);
    expect(await counter.increment('key_a', windowAt(NOW), 1)).toBeUndefined();
    expect(await counter.increment('key_b', windowAt(NOW), 1)).toBe(1);
    expect(await counter.increment('key_a', windowAt(NOW + 60_000), 1)).toBe(1);

    const { Item } = await db.doc.send(
      new GetCommand({ TableName: db.tableName, Key: rateWindowKey('key_a', windowAt(NOW).id) }),
    );
    expect(Item?.request_count).toBe(1);
    expect(Item?.expires_at).toBeGreaterThan(windowAt(NOW).resetAt);
  });
});
