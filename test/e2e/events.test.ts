import type { LocalStack } from '#bin/local-stack/stack';
import { createAccount, createApiKey } from '#domain/accounts/account-admin';
import { call, startTestApi, waitForFinal } from '#test-support/local-api';
import { startReceiver } from '#test-support/webhook-receiver';

/**
 * The events feed and redelivery over real HTTP on the local stack: endings land in the feed
 * whether or not a webhook exists, and a retry sends an event under its own id.
 */
jest.setTimeout(90_000);

let stack: LocalStack;
type Json = Record<string, any>;

beforeAll(async () => {
  stack = await startTestApi({ SIM_DELAY_SECONDS: '0', PROVIDER: 'simulated', WEBHOOK_RETRY_SCHEDULE: '0.3,0.3,0.3' });
});
afterAll(async () => {
  await stack.stop();
});

async function account() {
  const { account } = await createAccount(stack.context, { credits: 200 });
  const key = await createApiKey(stack.context, account.accountId, { rateLimit: 1000 });
  return { accountId: account.accountId, key: key.apiKey };
}

const post = (key: string, path: string, body?: unknown) =>
  call<Json>(stack.baseUrl, path, {
    method: 'POST',
    key,
    ...(body !== undefined && { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }),
  });
const events = (key: string, query = '') => call<Json>(stack.baseUrl, `/events${query}`, { key });

/** A stalled video canceled at once: a `video.failed` ending. Its id. */
async function canceledVideo(key: string): Promise<string> {
  const started = await post(key, '/generate', { prompt: 'sim:stall a paper kite', duration: 3 });
  const videoId = started.body.data!.video_id as string;
  expect((await post(key, `/videos/${videoId}/cancel`)).status).toBe(200);
  return videoId;
}

async function deliveryOf(key: string, webhookId: string, eventId: string, until: (delivery: Json | undefined) => boolean) {
  let delivery: Json | undefined;
  for (let i = 0; i < 100; i += 1) {
    const page = await call<Json>(stack.baseUrl, `/webhooks/${webhookId}/deliveries`, { key });
    delivery = (page.body.data!.deliveries as Json[]).find((item) => item.event_id === eventId);
    if (until(delivery)) return delivery;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return delivery;
}

it('lists endings that happened while no webhook existed, in order, once each; a retry sends one under its own webhook-id', async () => {
  const { key } = await account();
  const first = await canceledVideo(key);
  const started = await post(key, '/generate', { prompt: 'a lighthouse at dusk', duration: 3 });
  const completed = started.body.data!.video_id as string;
  expect((await waitForFinal<Json>(stack, key, `/videos/${completed}`)).body.data!.status).toBe('completed');
  const last = await canceledVideo(key);

  const page = await events(key);
  expect(page.status).toBe(200);
  const listed = page.body.data!.events as Json[];
  expect(listed.map((event) => [event.type, event.data.video_id])).toEqual([
    ['video.failed', first],
    ['video.completed', completed],
    ['video.failed', last],
  ]);
  expect(listed.map((event) => event.id)).toEqual([first, completed, last].map((id) => `evt_${id.slice(4)}`));
  // The same object GET answers for the ended task.
  expect(listed[1]!.data).toEqual((await call<Json>(stack.baseUrl, `/videos/${completed}`, { key })).body.data);
  expect(page.body.data!.has_more).toBe(false);

  // Paged by one, then polled with the last cursor: nothing repeats.
  const one = await events(key, '?limit=1');
  expect([one.body.data!.events.length, one.body.data!.has_more]).toEqual([1, true]);
  const rest = await events(key, `?limit=100&after=${one.body.data!.next_after}`);
  expect((rest.body.data!.events as Json[]).map((event) => event.data.video_id)).toEqual([completed, last]);
  const idle = await events(key, `?after=${rest.body.data!.next_after}`);
  expect(idle.body.data).toEqual({ events: [], has_more: false, next_after: rest.body.data!.next_after });

  // A webhook created afterwards gets the first ending when it is asked for, under the event's id.
  const receiver = await startReceiver();
  try {
    const created = (await post(key, '/webhooks', { url: receiver.url })).body.data!;
    receiver.useSecret(created.secret);
    const eventId = listed[0]!.id as string;
    const retried = await post(key, `/webhooks/${created.webhook_id}/deliveries/${eventId}/retry`);
    expect([retried.status, retried.body.data]).toEqual([200, { event_id: eventId, status: 'pending' }]);
    const [sent] = await receiver.waitFor(1);
    expect(sent!.id).toBe(eventId);
    expect(sent!.verified).toEqual(listed[0]);
    expect(await deliveryOf(key, created.webhook_id, eventId, (item) => item?.status === 'delivered')).toMatchObject({ attempts: 1, last_status_code: 200 });

    // Again: the delivered event goes once more, same webhook-id, and the log shows the attempt.
    expect((await post(key, `/webhooks/${created.webhook_id}/deliveries/${eventId}/retry`)).status).toBe(200);
    const both = await receiver.waitFor(2);
    expect(both.map((item) => item.id)).toEqual([eventId, eventId]);
    expect(both[1]!.body).toBe(both[0]!.body);
    expect(await deliveryOf(key, created.webhook_id, eventId, (item) => item?.attempts === 2 && item.status === 'delivered')).toMatchObject({
      attempts: 2,
      status: 'delivered',
    });
  } finally {
    await receiver.close();
  }
});

it.each([
  ['?after=garbage', 'after: not a cursor from this feed'],
  ['?after=' + 'x'.repeat(65), 'after: must be a cursor from next_after'],
  ['?limit=0', 'limit: must be an integer from 1 to 100'],
  ['?limit=101', 'limit: must be an integer from 1 to 100'],
])('answers %s with a 400 naming the parameter', async (query, message) => {
  const { key } = await account();
  const reply = await events(key, query);
  expect([reply.status, reply.body.error?.code]).toEqual([400, 'validation_error']);
  expect(reply.body.error!.message).toContain(message);
});

it("refuses another account's cursor with a 400 naming after", async () => {
  const owner = await account();
  const other = await account();
  await canceledVideo(owner.key);
  const cursor = (await events(owner.key)).body.data!.next_after as string;
  const reply = await events(other.key, `?after=${cursor}`);
  expect([reply.status, reply.body.error?.code]).toEqual([400, 'validation_error']);
  expect(reply.body.error!.message).toContain("after: this cursor belongs to another account's or mode's feed");
});

it("answers 404 to a retry of an unknown event, and of another account's webhook or event", async () => {
  const owner = await account();
  const other = await account();
  const webhook = (await post(owner.key, '/webhooks', { url: 'https://example.com/hooks' })).body.data!;
  const theirs = (await post(other.key, '/webhooks', { url: 'https://example.com/hooks' })).body.data!;
  const eventId = `evt_${(await canceledVideo(owner.key)).slice(4)}`;
  for (const [key, webhookId, event] of [
    [owner.key, webhook.webhook_id, 'evt_01M7ZNHRE3YZJA4Y3XQS4DQDGQ'],
    [owner.key, webhook.webhook_id, 'nonsense'],
    [other.key, webhook.webhook_id, eventId],
    [other.key, theirs.webhook_id, eventId],
  ]) {
    const reply = await post(key, `/webhooks/${webhookId}/deliveries/${event}/retry`);
    expect([event, reply.status, reply.body.error?.code]).toEqual([event, 404, 'not_found']);
  }
});
