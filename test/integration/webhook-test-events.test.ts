import { SILENT_TELEMETRY } from '#domain/shared/telemetry';
import { OPERATOR_STAMP } from '#domain/shared/audit';
import type { Db } from '#adapters/dynamodb/dynamo-client';
import { buildStores } from '#app-context/stores';
import { buildWebhookDeps, type WebhookDeps } from '#app-context/webhooks';
import { createAccount } from '#domain/accounts/account-admin';
import { RateLimitExceededError } from '#domain/shared/errors';
import { sendTestEvent, TEST_EVENT_INTERVAL_SECONDS } from '#domain/webhooks/deliveries';
import { createWebhook } from '#domain/webhooks/webhooks';
import { createTestDb, dropTestDb, testConfig } from '#test-support/test-db';

/**
 * The pace of test events per endpoint (issue 17, F), on DynamoDB Local with a clock the test
 * moves: one in flight, one every TEST_EVENT_INTERVAL_SECONDS, and racing requests get one event.
 * Nothing consumes the queue here, so a delivery stays pending until the test records its attempt.
 */
let db: Db;
let deps: WebhookDeps;
let now: Date;

beforeAll(async () => {
  db = await createTestDb();
});
afterAll(async () => {
  await dropTestDb(db);
});
beforeEach(() => {
  now = new Date('2026-03-01T12:00:00.000Z');
  deps = { ...buildWebhookDeps(testConfig(db.tableName), db), clock: () => now, queue: { send: async () => undefined } };
});

async function newEndpoint() {
  const stores = buildStores(db, SILENT_TELEMETRY);
  const { account } = await createAccount(stores, { credits: 0 });
  const endpoint = await createWebhook({ ...deps, accounts: stores.accounts }, account.accountId, { url: 'https://example.com/hooks' }, OPERATOR_STAMP);
  return { accountId: account.accountId, webhookId: endpoint.webhookId };
}

const advance = (seconds: number) => (now = new Date(now.getTime() + seconds * 1000));

async function answerAttempt(accountId: string, webhookId: string, eventId: string) {
  const delivery = (await deps.deliveries.get({ accountId, webhookId, eventId }))!;
  await deps.deliveries.recordAttempt(delivery, {
    status: 'failed',
    attempts: 1,
    lastStatusCode: 500,
    lastError: 'HTTP 500',
    lastAttemptAt: now.toISOString(),
    nextAttemptAt: null,
  });
}

it('refuses a second test event while the first is pending, with 429 words naming it', async () => {
  const { accountId, webhookId } = await newEndpoint();
  const { eventId } = await sendTestEvent(deps, accountId, webhookId);
  advance(60);
  const refused = sendTestEvent(deps, accountId, webhookId);
  await expect(refused).rejects.toBeInstanceOf(RateLimitExceededError);
  await expect(refused).rejects.toThrow(`A test event to this endpoint (${eventId}) is still being delivered`);
  const page = await deps.deliveries.listPage(accountId, webhookId, 1, 10);
  expect(page.total).toBe(1);
});

it(`allows the next test event once the first was answered and ${TEST_EVENT_INTERVAL_SECONDS} s have passed`, async () => {
  const { accountId, webhookId } = await newEndpoint();
  const first = await sendTestEvent(deps, accountId, webhookId);
  advance(2);
  await answerAttempt(accountId, webhookId, first.eventId);
  const early = sendTestEvent(deps, accountId, webhookId);
  await expect(early).rejects.toMatchObject({ retryAfterSeconds: TEST_EVENT_INTERVAL_SECONDS - 2 });
  await expect(early).rejects.toThrow(`At most one test event per endpoint every ${TEST_EVENT_INTERVAL_SECONDS} seconds`);
  advance(TEST_EVENT_INTERVAL_SECONDS - 2);
  const second = await sendTestEvent(deps, accountId, webhookId);
  expect(second.eventId).not.toBe(first.eventId);
});

it('gives one event to racing test requests', async () => {
  const { accountId, webhookId } = await newEndpoint();
  const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => sendTestEvent(deps, accountId, webhookId)));
  expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
  for (const outcome of outcomes) {
    if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(RateLimitExceededError);
  }
  expect((await deps.deliveries.listPage(accountId, webhookId, 1, 10)).total).toBe(1);
});

it('paces each endpoint on its own', async () => {
  const one = await newEndpoint();
  const other = await newEndpoint();
  await sendTestEvent(deps, one.accountId, one.webhookId);
  await expect(sendTestEvent(deps, other.accountId, other.webhookId)).resolves.toEqual({ eventId: expect.stringMatching(/^evt_/) });
});
