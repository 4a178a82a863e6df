import type { Db } from '#adapters/dynamodb/dynamo-client';
import { DynamoEventFeedStore } from '#adapters/dynamodb/event-feed-repository';
import { ValidationError } from '#domain/shared/errors';
import { appendToFeed, cursorOf, listEvents } from '#domain/webhooks/events-feed';
import { newEventId } from '#domain/shared/ids';
import type { WebhookEvent } from '#domain/webhooks/webhooks';
import { countingCommands } from '#test-support/command-counter';
import { createTestDb, dropTestDb } from '#test-support/test-db';

/**
 * The events feed on DynamoDB Local: many writers appending at once while a reader follows the
 * cursor; the reader must see every event exactly once, in position order.
 */
jest.setTimeout(120_000);

let db: Db;
let feed: DynamoEventFeedStore;

beforeAll(async () => {
  db = await createTestDb();
  feed = new DynamoEventFeedStore(db);
});
afterAll(async () => {
  await dropTestDb(db);
});

let accounts = 0;
const newAccount = () => `acc_feedtest${(accounts += 1)}${Date.now()}`;

function event(id = newEventId()): WebhookEvent {
  return { id, type: 'video.completed', createdAt: new Date().toISOString(), livemode: true, subject: { kind: 'test', webhookId: 'whk_x' } };
}
const append = (accountId: string, ended: WebhookEvent) => appendToFeed(feed, accountId, ended, JSON.stringify({ id: ended.id }));

it('gives a reader following the cursor every event exactly once while 40 writers append concurrently', async () => {
  const accountId = newAccount();
  const written = Array.from({ length: 40 }, () => event());
  let writing = true;
  const writers = Promise.all(written.map((ended) => append(accountId, ended))).finally(() => (writing = false));

  const seen: string[] = [];
  const positions: number[] = [];
  let after: string | undefined;
  // Small pages, read as fast as possible while the writers race, then until the feed is drained.
  for (let reads = 0; reads < 10_000; reads += 1) {
    const wasWriting = writing;
    const page = await listEvents(feed, accountId, after, 3);
    seen.push(...page.events.map((item) => item.eventId));
    positions.push(...page.events.map((item) => item.position));
    after = page.nextAfter;
    if (!wasWriting && !page.hasMore) break;
  }
  await writers;

  expect(seen).toHaveLength(written.length);
  expect(new Set(seen)).toEqual(new Set(written.map((ended) => ended.id)));
  expect(positions).toEqual(Array.from({ length: written.length }, (_, index) => index + 1));
});

it('appends after the position a refusal hands back: a counter read per append, not per try', async () => {
  const accountId = newAccount();
  const sent = await countingCommands(db, () => Promise.all(Array.from({ length: 20 }, () => append(accountId, event()))));
  const tries = sent.get('TransactWriteItemsCommand') ?? 0;
  // Each append reads its event and the counter once, at once; a lost position costs a try, no read.
  expect(tries).toBeGreaterThan(20);
  expect(sent.get('GetItemCommand')).toBe(40);
  expect((await listEvents(feed, accountId, undefined, 100)).events.map((e) => e.position)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
});

it('stores an event announced twice (even concurrently) once', async () => {
  const accountId = newAccount();
  const ended = event();
  await Promise.all([append(accountId, ended), append(accountId, ended), append(accountId, ended)]);
  await append(accountId, ended);
  const page = await listEvents(feed, accountId, undefined, 50);
  expect(page.events.map((item) => item.eventId)).toEqual([ended.id]);
  expect(page.hasMore).toBe(false);
});

it('pages oldest first with has_more and a cursor that continues where the page ended', async () => {
  const accountId = newAccount();
  const written = [event(), event(), event()];
  for (const ended of written) await append(accountId, ended);
  const first = await listEvents(feed, accountId, undefined, 2);
  expect(first.events.map((item) => item.eventId)).toEqual([written[0]!.id, written[1]!.id]);
  expect(first.hasMore).toBe(true);
  const second = await listEvents(feed, accountId, first.nextAfter, 2);
  expect(second.events.map((item) => item.eventId)).toEqual([written[2]!.id]);
  expect(second.hasMore).toBe(false);
  // Nothing new: the same cursor comes back, ready for the next poll.
  const empty = await listEvents(feed, accountId, second.nextAfter, 2);
  expect(empty).toEqual({ events: [], hasMore: false, nextAfter: second.nextAfter });
});

it.each([['garbage'], ['not base64 !'], [Buffer.from('12.zzzzzzzzzzzz').toString('base64url')], ['']])(
  'refuses the cursor %j with a ValidationError naming after',
  async (cursor) => {
    const attempt = listEvents(feed, newAccount(), cursor, 10);
    await expect(attempt).rejects.toBeInstanceOf(ValidationError);
    await expect(attempt).rejects.toMatchObject({ field: 'after' });
  },
);

it("refuses another account's cursor", async () => {
  const attempt = listEvents(feed, newAccount(), cursorOf(3, 'acc_someoneelse'), 10);
  await expect(attempt).rejects.toMatchObject({ field: 'after', message: expect.stringContaining("another account's") });
});
