import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LocalStack } from '#bin/local-stack/stack';
import { createAccount, createApiKey } from '#domain/accounts/account-admin';
import { call, startTestApi, post } from '#test-support/local-api';
import { startReceiver } from '#test-support/webhook-receiver';
import { lambdaContext } from '#bin/lambda-context.cjs';
import { loadHandler } from '#bin/local-stack/lambda-runtime';
import { DynamoDeliveryStore } from '#adapters/dynamodb/delivery-repository';
import { newEventId } from '#domain/shared/ids';
import { VidgenClient, verifyWebhook } from '#client';
import { newAccount } from '#test-support/accounts';
import { localQueue } from '#app-context/queues';
import { pollFor, pollUntil } from '#test-support/wait';

/**
 * Webhook endpoints and deliveries over real HTTP: the local stack's delivery queue runs the
 * consumer; receivers on 127.0.0.1 verify every request with the standardwebhooks library.
 */
jest.setTimeout(60_000);

let stack: LocalStack;
type Json = Record<string, any>;

beforeAll(async () => {
  // Retries within a second, so the schedule is seen in a test.
  stack = await startTestApi({ SIM_DELAY_SECONDS: '0', PROVIDER: 'simulated', WEBHOOK_RETRY_SCHEDULE: '0.3,0.3,0.3' });
});
afterAll(async () => {
  await stack.stop();
});

/**
 * The endpoint's deliveries, newest first, once `done` holds for them: polled as a client would,
 * since the delivery queue writes them on its own time. At the deadline, what there is.
 */
const deliveriesWhen = (key: string, webhookId: string, done: (deliveries: Json[]) => boolean, timeoutMs = 30_000): Promise<Json[]> =>
  pollFor(async () => (await call<Json>(stack.baseUrl, `/webhooks/${webhookId}/deliveries`, { key })).body.data!.deliveries as Json[], done, { timeoutMs });

/**
 * Waits until the delivery queue holds nothing, waiting or in flight: every attempt queued so far
 * has been made and recorded, and none can follow unless something new is queued (this file's
 * tests run one at a time, and the stack's sweeper is off).
 */
async function deliveryQueueEmpty(): Promise<void> {
  const queue = localQueue('webhook-deliveries');
  expect(queue.running).toBe(true); // the stack's own queue, which its consumer reads
  await pollUntil(() => queue.depth === 0, { what: 'an empty delivery queue' });
}

/** The newest delivery once it has this status. */
const newestWhen = async (key: string, webhookId: string, status: string) =>
  (await deliveriesWhen(key, webhookId, (deliveries) => deliveries[0]?.status === status))[0];

async function endpoint(key: string, url: string, extra: Json = {}) {
  const reply = await post(stack, key, '/webhooks', { url, ...extra });
  expect(reply.status).toBe(200);
  return reply.body.data!;
}

describe('webhook endpoints', () => {
  it('registers an endpoint with a secret shown once, lists it without, and deletes it', async () => {
    const { key } = await newAccount(stack, { credits: 100, paid: false });
    const created = await endpoint(key, 'https://example.com/hooks', { description: 'prod receiver' });
    expect(created).toMatchObject({
      webhook_id: expect.stringMatching(/^whk_[0-9A-Z]{26}$/),
      url: 'https://example.com/hooks',
      events: ['video.completed', 'video.failed', 'image.completed', 'image.failed', 'video.delivery_failed', 'image.delivery_failed'],
      description: 'prod receiver',
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
    });
    const listed = await call<Json>(stack.baseUrl, '/webhooks', { key });
    const { secret: _secret, ...shown } = created;
    expect(listed.body.data).toEqual({ webhooks: [shown] });

    const deleted = await call<Json>(stack.baseUrl, `/webhooks/${created.webhook_id}`, { method: 'DELETE', key });
    expect(deleted.body.data).toEqual({ webhook_id: created.webhook_id, deleted: true });
    expect((await call<Json>(stack.baseUrl, '/webhooks', { key })).body.data).toEqual({ webhooks: [] });
    const again = await call(stack.baseUrl, `/webhooks/${created.webhook_id}`, { method: 'DELETE', key });
    expect([again.status, again.body.error?.code]).toEqual([404, 'not_found']);
  });

  it.each([
    [{ url: 'http://example.com/hooks' }, 'url: must be an https URL'],
    [{ url: 'http://127.0.0.1:9/hooks', note: 'allowed locally' }, ''],
    [{ url: 'https://user:pw@example.com/hooks' }, 'url: must not contain credentials'],
    [{ url: 'not a url' }, 'url: must be an absolute https URL'],
    [{ url: 'https://example.com', events: ['video.started'] }, 'events.0: must be one of'],
    [{ url: 'https://example.com', events: [] }, 'events: must name at least one event type'],
    [{ url: 'https://example.com', description: 'a description of 501 characters' }, 'description: must be at most 500 characters'],
    [{}, 'url:'],
  ])('refuses %j with a 400 naming the field', async (body, message) => {
    const { key } = await newAccount(stack, { credits: 100, paid: false });
    const sent = 'description' in body ? { ...body, description: 'x'.repeat(501) } : body;
    const reply = await post(stack, key, '/webhooks', sent);
    if (message === '') {
      // Loopback over http is the local stack's own allowance (WEBHOOK_ALLOW_LOOPBACK), for a developer's receiver.
      expect(reply.status).toBe(200);
      return;
    }
    expect([reply.status, reply.body.error?.code]).toEqual([400, 'validation_error']);
    expect(reply.body.error?.message).toContain(message);
    expect((await call<Json>(stack.baseUrl, '/webhooks', { key })).body.data).toEqual({ webhooks: [] });
  });

  // The attack run's addresses (issue 17, C): refused at creation, before anything is stored.
  // Loopback forms (localhost., [::ffff:127.0.0.1]) are the local stack's own allowance; the
  // unit test of webhook-destinations.ts refuses them without it.
  it.each([
    'https://169.254.169.254/latest/meta-data/',
    'https://10.0.0.1/hooks',
    'https://192.168.1.1/hooks',
    'https://0.0.0.0/hooks',
    'https://[fd00::1]/hooks',
    'https://[::ffff:169.254.169.254]/hooks',
    'http://10.0.0.1/hooks',
  ])('refuses the non-public destination %s with a 400 naming url', async (url) => {
    const { key } = await newAccount(stack, { credits: 100, paid: false });
    const reply = await post(stack, key, '/webhooks', { url });
    expect([reply.status, reply.body.error?.code]).toEqual([400, 'validation_error']);
    expect(reply.body.error?.message).toMatch(/^url: must be a public https URL: .+ is not a public address/);
    expect((await call<Json>(stack.baseUrl, '/webhooks', { key })).body.data).toEqual({ webhooks: [] });
  });

  it('allows at most ten endpoints per account, even when the eleventh and twelfth race', async () => {
    const { key } = await newAccount(stack, { credits: 100, paid: false });
    for (let i = 0; i < 8; i += 1) await endpoint(key, `https://example.com/hooks/${i}`);
    const racing = await Promise.all([0, 1, 2, 3].map((i) => post(stack, key, '/webhooks', { url: `https://example.com/race/${i}` })));
    expect(racing.map((reply) => reply.status).sort()).toEqual([200, 200, 400, 400]);
    expect(racing.find((reply) => reply.status === 400)!.body.error!.message).toContain('at most 10 webhook endpoints');
    expect(((await call<Json>(stack.baseUrl, '/webhooks', { key })).body.data!.webhooks as unknown[]).length).toBe(10);
  });

  it("answers 404 for another account's endpoint and for ids that cannot exist", async () => {
    const owner = await newAccount(stack, { credits: 100, paid: false });
    const other = await newAccount(stack, { credits: 100, paid: false });
    const created = await endpoint(owner.key, 'https://example.com/hooks');
    for (const [method, path] of [
      ['DELETE', `/webhooks/${created.webhook_id}`],
      ['POST', `/webhooks/${created.webhook_id}/test`],
      ['GET', `/webhooks/${created.webhook_id}/deliveries`],
      ['GET', '/webhooks/whk_nope/deliveries'],
    ] as const) {
      const reply = await call(stack.baseUrl, path, { method, key: other.key });
      expect([method, path, reply.status, reply.body.error?.code]).toEqual([method, path, 404, 'not_found']);
    }
  });
});

/** A task event for the account's endpoints at once: a stalled video, canceled (video.failed). Its event id. */
async function canceledVideo(key: string): Promise<string> {
  const started = await post(stack, key, '/generate', { prompt: 'sim:stall a paper kite', duration: 3 });
  const videoId = started.body.data!.video_id as string;
  expect((await post(stack, key, `/videos/${videoId}/cancel`)).status).toBe(200);
  return `evt_${videoId.slice(4)}`;
}

describe('deliveries', () => {
  it('sends a signed webhook.test event that standardwebhooks verifies, and lists the delivery', async () => {
    const { key } = await newAccount(stack, { credits: 100, paid: false });
    const receiver = await startReceiver();
    try {
      const created = await endpoint(key, receiver.url);
      receiver.useSecret(created.secret);
      const sent = await post(stack, key, `/webhooks/${created.webhook_id}/test`);
      expect(sent.body.data).toEqual({ event_id: expect.stringMatching(/^evt_[0-9A-Z]{26}$/) });
      const [event] = await receiver.waitFor(1);
      expect(event!.id).toBe(sent.body.data!.event_id);
      expect(event!.verified).toEqual({
        id: sent.body.data!.event_id,
        type: 'webhook.test',
        created_at: expect.any(String),
        livemode: true,
        data: { webhook_id: created.webhook_id },
      });

      const deliveries = await deliveriesWhen(key, created.webhook_id, (found) => found[0]?.status === 'delivered');
      expect(deliveries).toEqual([
        {
          event_id: sent.body.data!.event_id,
          type: 'webhook.test',
          status: 'delivered',
          attempts: 1,
          last_status_code: 200,
          last_error: null,
          last_attempt_at: expect.any(String),
          next_attempt_at: null,
        },
      ]);
    } finally {
      await receiver.close();
    }
  });

  it('retries a receiver that fails, under the same webhook-id, until it answers 2xx', async () => {
    const { key } = await newAccount(stack, { credits: 100, paid: false });
    const receiver = await startReceiver({ answer: (attempt) => ({ status: attempt <= 2 ? 503 : 204 }) });
    try {
      const created = await endpoint(key, receiver.url);
      receiver.useSecret(created.secret);
      const eventId = await canceledVideo(key);
      const attempts = await receiver.waitFor(3);
      expect(attempts.map((attempt) => attempt.id)).toEqual(Array(3).fill(eventId));
      expect(attempts.every((attempt) => attempt.verified !== undefined)).toBe(true);
      expect(new Set(attempts.map((attempt) => attempt.body)).size).toBe(1);
      // The receiver records a request before answering it: the record of the 2xx comes after.
      const delivery = await newestWhen(key, created.webhook_id, 'delivered');
      expect(receiver.received).toHaveLength(3);
      expect(delivery).toMatchObject({ status: 'delivered', attempts: 3, last_status_code: 204, last_error: null });
    } finally {
      await receiver.close();
    }
  });

  it('never follows a redirect: a 3xx is a failed attempt, and the schedule ends in failed', async () => {
    const { key } = await newAccount(stack, { credits: 100, paid: false });
    const target = await startReceiver();
    const receiver = await startReceiver({ answer: () => ({ status: 302, headers: { location: target.url } }) });
    try {
      const created = await endpoint(key, receiver.url);
      await canceledVideo(key);
      // One first attempt plus three retries (WEBHOOK_RETRY_SCHEDULE has three entries).
      await receiver.waitFor(4);
      const delivery = await newestWhen(key, created.webhook_id, 'failed');
      expect(delivery).toMatchObject({
        status: 'failed',
        attempts: 4,
        last_status_code: 302,
        last_error: 'redirect not followed (HTTP 302)',
        next_attempt_at: null,
      });
      expect(receiver.received).toHaveLength(4);
      expect(target.received).toHaveLength(0);
    } finally {
      await Promise.all([receiver.close(), target.close()]);
    }
  });

  it('says why each attempt failed in last_error: the status, or why no answer came', async () => {
    const { key } = await newAccount(stack, { credits: 100, paid: false });
    const failing = await startReceiver({ answer: () => ({ status: 500 }) });
    const closed = await startReceiver();
    await closed.close(); // nothing listens on its port any more
    try {
      const answering = await endpoint(key, failing.url);
      const refusing = await endpoint(key, closed.url);
      await post(stack, key, `/webhooks/${answering.webhook_id}/test`);
      await post(stack, key, `/webhooks/${refusing.webhook_id}/test`);
      const lastDelivery = async (webhookId: string) => (await deliveriesWhen(key, webhookId, (found) => found[0]?.attempts >= 1))[0];
      expect(await lastDelivery(answering.webhook_id)).toMatchObject({ last_status_code: 500, last_error: 'HTTP 500' });
      expect(await lastDelivery(refusing.webhook_id)).toMatchObject({ last_status_code: null, last_error: 'connection refused' });
    } finally {
      await failing.close();
    }
  });

  it('sends nothing more to an endpoint deleted while its delivery waits for a retry', async () => {
    const { accountId, key } = await newAccount(stack, { credits: 100, paid: false });
    const receiver = await startReceiver({ answer: () => ({ status: 500 }) });
    try {
      const created = await endpoint(key, receiver.url);
      const eventId = await canceledVideo(key);
      await receiver.waitFor(1);
      await call(stack.baseUrl, `/webhooks/${created.webhook_id}`, { method: 'DELETE', key });
      const seen = receiver.received.length;
      // The delivery ends (failed: endpoint deleted, or its schedule ran out) and the queue is empty:
      // an ended delivery is never attempted again, so the count below is final.
      const deliveries = new DynamoDeliveryStore(stack.context.db);
      await pollUntil(async () => (await deliveries.get({ accountId, webhookId: created.webhook_id, eventId }))?.status === 'failed', { what: 'the delivery to end' });
      await deliveryQueueEmpty();
      expect(receiver.received.length).toBeLessThanOrEqual(seen + 1); // at most the attempt already under way
    } finally {
      await receiver.close();
    }
  });
});

describe('test events', () => {
  it('are paced per endpoint: 20 requests to a receiver answering 500 send one event, attempted once (issue 17, F)', async () => {
    const { key } = await newAccount(stack, { credits: 100, paid: false });
    const receiver = await startReceiver({ answer: () => ({ status: 500 }) });
    try {
      const created = await endpoint(key, receiver.url);
      const replies = [];
      for (let i = 0; i < 20; i += 1) replies.push(await post(stack, key, `/webhooks/${created.webhook_id}/test`));
      expect(replies[0]!.status).toBe(200);
      for (const reply of replies.slice(1)) {
        expect([reply.status, reply.body.error?.code]).toEqual([429, 'rate_limit_exceeded']);
        expect(reply.body.error?.message).toMatch(/still being delivered|At most one test event per endpoint every 10 seconds/);
        expect(Number(reply.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      const delivery = await newestWhen(key, created.webhook_id, 'failed');
      expect(delivery).toMatchObject({ type: 'webhook.test', status: 'failed', attempts: 1, last_error: 'HTTP 500', next_attempt_at: null });
      // A test event is not retried: once nothing is left in the delivery queue, its one attempt is all there is.
      await deliveryQueueEmpty();
      expect(receiver.received).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it('answer 429 naming the event while one is still being delivered', async () => {
    const { key } = await newAccount(stack, { credits: 100, paid: false });
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const server = http.createServer((request, response) => {
      request.resume();
      void held.then(() => response.writeHead(204).end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const created = await endpoint(key, `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`);
      const first = await post(stack, key, `/webhooks/${created.webhook_id}/test`);
      const eventId = first.body.data!.event_id as string;
      const second = await post(stack, key, `/webhooks/${created.webhook_id}/test`);
      expect([second.status, second.body.error?.code]).toEqual([429, 'rate_limit_exceeded']);
      expect(second.body.error?.message).toContain(`A test event to this endpoint (${eventId}) is still being delivered`);
      release();
      const delivery = await newestWhen(key, created.webhook_id, 'delivered');
      expect(delivery).toMatchObject({ event_id: eventId, status: 'delivered', attempts: 1, last_status_code: 204 });
    } finally {
      release();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('after a restart', () => {
  const runSweeper = () => loadHandler('sweeper')({}, lambdaContext('sweeper')) as Promise<Json>;

  it('the sweeper resends a pending delivery that is due and has no queue message (a retry lost with the process)', async () => {
    const { accountId, key } = await newAccount(stack, { credits: 100, paid: false });
    const receiver = await startReceiver();
    try {
      const created = await endpoint(key, receiver.url);
      receiver.useSecret(created.secret);
      // What a kill -9 leaves: the record of a retry due two minutes ago, its wait lost with the process's memory.
      const eventId = newEventId();
      const payload = JSON.stringify({ id: eventId, type: 'webhook.test', created_at: '2026-01-01T00:00:00.000Z', livemode: true, data: { webhook_id: created.webhook_id } });
      const twoMinutesAgo = new Date(Date.now() - 120_000).toISOString();
      const deliveries = new DynamoDeliveryStore(stack.context.db);
      await deliveries.create({
        accountId,
        webhookId: created.webhook_id,
        eventId,
        type: 'webhook.test',
        payload,
        status: 'pending',
        attempts: 1,
        lastStatusCode: 500,
        lastError: 'HTTP 500',
        lastAttemptAt: twoMinutesAgo,
        nextAttemptAt: twoMinutesAgo,
        createdAt: twoMinutesAgo,
      });

      // At least this one (the stack's table is shared with this file's other tests).
      expect((await runSweeper()).resentDeliveries).toBeGreaterThanOrEqual(1);
      const [event] = await receiver.waitFor(1);
      expect(event).toMatchObject({ id: eventId, body: payload, verified: expect.objectContaining({ id: eventId }) });
      const delivery = await newestWhen(key, created.webhook_id, 'delivered');
      expect(delivery).toMatchObject({ event_id: eventId, status: 'delivered', attempts: 2, last_status_code: 200, last_error: null });
      // Delivered: off the sweeper's list (whatever this sweep queued has been handled once the queue is empty).
      await runSweeper();
      await deliveryQueueEmpty();
      expect(receiver.received).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it('the sweeper leaves alone a delivery whose retry is not yet overdue', async () => {
    const { accountId, key } = await newAccount(stack, { credits: 100, paid: false });
    const receiver = await startReceiver();
    try {
      const created = await endpoint(key, receiver.url);
      const soon = new Date(Date.now() + 60_000).toISOString();
      const deliveries = new DynamoDeliveryStore(stack.context.db);
      const eventId = newEventId();
      await deliveries.create({
        accountId,
        webhookId: created.webhook_id,
        eventId,
        type: 'webhook.test',
        payload: '{}',
        status: 'pending',
        attempts: 1,
        lastStatusCode: 500,
        lastError: 'HTTP 500',
        lastAttemptAt: new Date().toISOString(),
        nextAttemptAt: soon,
        createdAt: new Date().toISOString(),
      });
      await runSweeper();
      // Whatever this sweep queued has been handled once the queue is empty.
      await deliveryQueueEmpty();
      expect(receiver.received).toHaveLength(0);
      expect(await deliveries.get({ accountId, webhookId: created.webhook_id, eventId })).toMatchObject({ status: 'pending', attempts: 1 });
    } finally {
      await receiver.close();
    }
  });
});

describe('task events', () => {
  const start = (key: string, path: string, body: unknown) =>
    call<Json>(stack.baseUrl, path, { method: 'POST', key, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

  it('sends video.completed, video.failed (a failure and a cancel) and image.completed with the task as GET returns it', async () => {
    const { account } = await createAccount(stack.context, { credits: 200, paidAccess: true, subscriptionStatus: 'active' });
    const key = (await createApiKey(stack.context, account.accountId, { rateLimit: 1000 })).apiKey;
    const receiver = await startReceiver();
    try {
      const created = await endpoint(key, receiver.url);
      receiver.useSecret(created.secret);
      const done = (await start(key, '/generate', { prompt: 'a kite over dunes', duration: 3 })).body.data!.video_id;
      const failed = (await start(key, '/generate', { prompt: 'sim:fail a storm', duration: 3 })).body.data!.video_id;
      const stalled = (await start(key, '/generate', { prompt: 'sim:stall a queue', duration: 3 })).body.data!.video_id;
      const image = (await start(key, '/generate-image', { prompt: 'a red kite' })).body.data!.image_id;
      await call(stack.baseUrl, `/videos/${stalled}/cancel`, { method: 'POST', key });
      // Polls move the other tasks on (the simulated provider has no delay here).
      const moveOn = async () => {
        await Promise.all([call(stack.baseUrl, `/videos/${done}`, { key }), call(stack.baseUrl, `/videos/${failed}`, { key }), call(stack.baseUrl, `/images/${image}`, { key })]);
        return receiver.received.length;
      };
      await pollFor(moveOn, (count) => count >= 4, { timeoutMs: 40_000, everyMs: 500 });
      const events = receiver.received.map((event) => event.verified!);
      expect(events.map((event) => `${event.type} ${(event.data.video_id ?? event.data.image_id) as string}`).sort()).toEqual(
        [`image.completed ${image}`, `video.completed ${done}`, `video.failed ${failed}`, `video.failed ${stalled}`].sort(),
      );
      for (const event of events) {
        const id = (event.data.video_id ?? event.data.image_id) as string;
        const path = event.data.video_id ? `/videos/${id}` : `/images/${id}`;
        expect(event.data).toEqual((await call<Json>(stack.baseUrl, path, { key })).body.data);
        expect(event.id).toBe(`evt_${id.slice(4)}`);
      }
      expect(events.find((event) => event.data.video_id === stalled)!.data.error).toMatchObject({ code: 'canceled' });
      // Every task has ended and announced itself; once the delivery queue is empty, no attempt is left to come.
      await deliveryQueueEmpty();
      expect(receiver.received).toHaveLength(4); // one event per task
    } finally {
      await receiver.close();
    }
  });
});

describe('the TypeScript client', () => {
  it('manages endpoints, sends a test event its verifyWebhook accepts, lists deliveries and cancels a task', async () => {
    const { key } = await newAccount(stack, { credits: 100, paid: false });
    const client = new VidgenClient({ apiKey: key, baseUrl: stack.baseUrl });
    const receiver = await startReceiver();
    try {
      const created = await client.createWebhook({ url: receiver.url, events: ['video.failed'] });
      expect(created).toMatchObject({ events: ['video.failed'], secret: expect.stringMatching(/^whsec_/) });
      expect((await client.listWebhooks()).webhooks.map((webhook) => webhook.webhook_id)).toEqual([created.webhook_id]);
      const { event_id } = await client.testWebhook(created.webhook_id);
      const [event] = await receiver.waitFor(1);
      const headers = { 'webhook-id': event!.id, 'webhook-timestamp': event!.timestamp, 'webhook-signature': event!.signature };
      await expect(verifyWebhook(event!.body, headers, created.secret)).resolves.toMatchObject({ id: event_id, type: 'webhook.test' });
      await expect(verifyWebhook(event!.body, headers, `whsec_${Buffer.from('some other secret here!!').toString('base64')}`)).rejects.toThrow(/No webhook-signature/);

      const video = await client.generateVideo({ prompt: 'sim:stall a paper kite', duration: 3 });
      const canceled = await client.cancelVideo(video.video_id);
      expect(canceled).toMatchObject({ status: 'failed', error: { code: 'canceled' } });
      await receiver.waitFor(2);
      const page = await pollFor(
        () => client.listWebhookDeliveries(created.webhook_id, { limit: 10 }),
        (found) => found.deliveries.every((delivery) => delivery.status === 'delivered'),
        { timeoutMs: 30_000 },
      );
      expect(page.deliveries.map((delivery) => [delivery.type, delivery.status])).toEqual([
        ['video.failed', 'delivered'],
        ['webhook.test', 'delivered'],
      ]);
      expect(page.pagination).toMatchObject({ total: 2, has_more: false });
      await expect(client.deleteWebhook(created.webhook_id)).resolves.toEqual({ webhook_id: created.webhook_id, deleted: true });
      await expect(client.cancelVideo(video.video_id)).rejects.toMatchObject({ status: 409, code: 'task_not_cancelable' });
    } finally {
      await receiver.close();
    }
  });
});

