import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { LocalStack } from '#bin/local-stack/stack';
import { createAccount, createApiKey, grantCredits } from '#domain/accounts/account-admin';
import { ledgerSum } from '#domain/accounts/ledger';
import { partitionOf } from '#domain/shared/partition';
import { SAMPLES_SOURCE_DIR } from '#providers/simulated/sample-outputs';
import { VidgenClient } from '#client';
import { signedInHolder } from '#test-support/identity';
import { call, startTestApi, waitForFinal } from '#test-support/local-api';
import { startReceiver } from '#test-support/webhook-receiver';

/**
 * Test mode over real HTTP: `vg_test_` keys and live keys of one account see disjoint data on
 * every route, draw on separate balances and ledgers, and get the same answers.
 */
jest.setTimeout(120_000);

type Json = Record<string, any>;
let stack: LocalStack;

beforeAll(async () => {
  stack = await startTestApi({ SIM_DELAY_SECONDS: '0', PROVIDER: 'simulated', WEBHOOK_RETRY_SCHEDULE: '0.3,0.3,0.3' });
});
afterAll(async () => {
  await stack.stop();
});

/** Starts refused without paid access (images) or an active subscription (vid-2-0, vid-2-0-fast). */
const PAID_STARTS: Array<[string, Json]> = [
  ['/generate-image', { prompt: 'a kite' }],
  ['/generate', { prompt: 'a kite', model: 'vid-2-0', duration: 3 }],
  ['/generate', { prompt: 'a kite', model: 'vid-2-0-fast', duration: 3 }],
];

/** An account (paid, active) with a live key and a test key. */
async function account(credits = 500) {
  const { account } = await createAccount(stack.context, { credits, paidAccess: true, subscriptionStatus: 'active' });
  const live = await createApiKey(stack.context, account.accountId, { rateLimit: 100_000 });
  const test = await createApiKey(stack.context, account.accountId, { rateLimit: 100_000, mode: 'test' });
  return { accountId: account.accountId, live: live.apiKey, test: test.apiKey, testKeyMode: test.mode };
}

const get = (key: string, path: string) => call<Json>(stack.baseUrl, path, { key });
const post = (key: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  call<Json>(stack.baseUrl, path, {
    method: 'POST',
    key,
    headers: { ...(body !== undefined && { 'Content-Type': 'application/json' }), ...headers },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
const del = (key: string, path: string) => call<Json>(stack.baseUrl, path, { method: 'DELETE', key });

/** Every transaction of a key's ledger, all pages. */
async function allTransactions(key: string, limit = 50): Promise<Json[]> {
  const all: Json[] = [];
  for (let page = 1; ; page += 1) {
    const reply = await get(key, `/credits/transactions?page=${page}&limit=${limit}`);
    expect(reply.status).toBe(200);
    all.push(...reply.body.data!.transactions);
    if (!reply.body.data!.pagination.has_more) return all;
  }
}

const sum = (transactions: Json[]) => transactions.reduce((total, t) => total + (t.amount as number), 0);

describe('test keys', () => {
  it('are vg_test_ keys whose first use opens a 1000-credit test balance with the live account\'s access', async () => {
    const { live, test, testKeyMode } = await account(500);
    expect(test).toMatch(/^vg_test_[0-9A-Za-z]{40}$/);
    expect(testKeyMode).toBe('test');
    expect((await get(test, '/credits')).body.data).toEqual({ credits: 1000, paid_access: true, subscription_status: 'active' });
    expect((await get(live, '/credits')).body.data).toEqual({ credits: 500, paid_access: true, subscription_status: 'active' });
    const opening = await get(test, '/credits/transactions');
    expect(opening.body.data).toEqual({
      transactions: [
        {
          transaction_id: expect.stringMatching(/^txn_[0-9A-Z]{26}$/),
          type: 'grant',
          amount: 1000,
          task_id: null,
          reason: 'test mode opening balance',
          created_at: expect.any(String),
        },
      ],
      pagination: { page: 1, limit: 20, total: 1, total_pages: 1, has_more: false },
    });
  });

  it('follow the live account\'s paid access: the same 403 as live', async () => {
    const { account: plain } = await createAccount(stack.context, { credits: 100 });
    const test = (await createApiKey(stack.context, plain.accountId, { mode: 'test' })).apiKey;
    const live = (await createApiKey(stack.context, plain.accountId)).apiKey;
    for (const [path, body] of PAID_STARTS) {
      const [inTest, inLive] = [await post(test, path, body), await post(live, path, body)];
      expect([inTest.status, inTest.body.error?.code]).toEqual([403, 'paid_access_required']);
      expect(inTest.body.error).toEqual(inLive.body.error);
    }
  });
});

describe('the test subscription', () => {
  /** A signed-in holder (no paid access) with a test key and a live key made in the console's way. */
  async function holder() {
    const session = (await signedInHolder(stack)).accessToken;
    const keyOf = async (mode: 'live' | 'test') =>
      (await post(session, '/keys', { name: `${mode} key`, mode })).body.data!.api_key as string;
    return { session, test: await keyOf('test'), live: await keyOf('live') };
  }
  const testMode = { 'Vidgen-Mode': 'test' };
  const start = (session: string, headers: Record<string, string> = testMode) => post(session, '/billing/test-subscription', undefined, headers);
  const end = (session: string) => call<Json>(stack.baseUrl, '/billing/test-subscription', { method: 'DELETE', key: session, headers: testMode });
  const refusals = async (key: string) =>
    Promise.all(PAID_STARTS.map(async ([path, body]) => (await post(key, path, body)).body.error?.code ?? 'started'));

  it('lets a test key use images and vid-2-0* once started, refuses them again once ended; live keys keep their refusal', async () => {
    const { session, test, live } = await holder();
    expect(await refusals(test)).toEqual(['paid_access_required', 'paid_access_required', 'paid_access_required']);
    const quote = await post(test, '/quote', { kind: 'video', model: 'vid-2-0', prompt: 'a kite' });
    expect(quote.body.data).toMatchObject({ can_start: false, reason: 'paid_access_required' });

    const started = await start(session);
    expect([started.status, started.body.data]).toEqual([200, { credits: 1000, paid_access: true, subscription_status: 'active' }]);
    expect((await get(test, '/credits')).body.data).toEqual({ credits: 1000, paid_access: true, subscription_status: 'active' });
    const replies = await Promise.all(PAID_STARTS.map(([path, body]) => post(test, path, body)));
    expect(replies.map((reply) => [reply.status, reply.body.data?.status, reply.body.data?.livemode])).toEqual(Array(3).fill([200, 'processing', false]));
    for (const reply of replies) {
      const id = (reply.body.data!.video_id ?? reply.body.data!.image_id) as string;
      const final = await waitForFinal<Json>(stack, test, `/${id.startsWith('img_') ? 'images' : 'videos'}/${id}`);
      expect(final.body.data?.status).toBe('completed');
    }
    // Live mode is untouched: the same account still has no paid access there.
    expect(await refusals(live)).toEqual(['paid_access_required', 'paid_access_required', 'paid_access_required']);
    expect((await get(live, '/credits')).body.data).toMatchObject({ paid_access: false, subscription_status: 'none' });

    const ended = await end(session);
    const spent = replies.reduce((total, reply) => total + (reply.body.data!.credits_used as number), 0);
    expect([ended.status, ended.body.data]).toEqual([200, { credits: 1000 - spent, paid_access: false, subscription_status: 'canceled' }]);
    expect(await refusals(test)).toEqual(['paid_access_required', 'paid_access_required', 'paid_access_required']);
    // Ending it again answers the same.
    expect((await end(session)).body.data).toEqual(ended.body.data);
  });

  it('answers the same to concurrent starts, the first use of the test balance included', async () => {
    const { session, test } = await holder();
    const replies = await Promise.all(Array.from({ length: 5 }, () => start(session)));
    expect(replies.map((reply) => [reply.status, reply.body.data])).toEqual(Array(5).fill([200, { credits: 1000, paid_access: true, subscription_status: 'active' }]));
    // One opening grant: the racing first uses opened one test balance.
    expect((await allTransactions(test)).map((entry) => [entry.type, entry.amount])).toEqual([['grant', 1000]]);
  });

  it('is for test-mode sessions: 400 in live mode, 403 for an API key', async () => {
    const { session, test } = await holder();
    const inLive = await start(session, {});
    expect([inLive.status, inLive.body.error?.code, inLive.body.error?.message]).toEqual([400, 'validation_error', expect.stringContaining('Vidgen-Mode: test')]);
    const endInLive = await call<Json>(stack.baseUrl, '/billing/test-subscription', { method: 'DELETE', key: session });
    expect([endInLive.status, endInLive.body.error?.code]).toEqual([400, 'validation_error']);
    const byKey = await start(test);
    expect([byKey.status, byKey.body.error?.code]).toEqual([403, 'forbidden']);
    expect((await get(test, '/credits')).body.data).toMatchObject({ paid_access: false, subscription_status: 'none' });
  });

  it('is in the TypeScript client', async () => {
    const { session, test } = await holder();
    const client = new VidgenClient({ sessionToken: session, mode: 'test', baseUrl: stack.baseUrl });
    expect(await client.startTestSubscription()).toMatchObject({ paid_access: true, subscription_status: 'active' });
    expect((await post(test, '/generate', { prompt: 'a kite', model: 'vid-2-0-fast', duration: 3 })).status).toBe(200);
    expect(await client.endTestSubscription()).toMatchObject({ paid_access: false, subscription_status: 'canceled' });
  });
});

describe('mode isolation, both directions, on every route', () => {
  it('tasks, lists, cancels, credits, transactions, webhooks and deliveries', async () => {
    const { live, test } = await account(500);
    const start = async (key: string) => ({
      video: (await post(key, '/generate', { prompt: 'sim:stall a kite', duration: 3 })).body.data!,
      image: (await post(key, '/generate-image', { prompt: 'sim:stall a kite' })).body.data!,
    });
    const mine = { live: await start(live), test: await start(test) };
    expect([mine.live.video.livemode, mine.live.image.livemode, mine.test.video.livemode, mine.test.image.livemode]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    const hooks = {
      live: (await post(live, '/webhooks', { url: 'https://example.com/live' })).body.data!,
      test: (await post(test, '/webhooks', { url: 'https://example.com/test' })).body.data!,
    };

    for (const [mode, key, other, otherHook] of [
      ['live', live, mine.test, hooks.test],
      ['test', test, mine.live, hooks.live],
    ] as const) {
      const own = mode === 'live' ? mine.live : mine.test;
      const ownHook = mode === 'live' ? hooks.live : hooks.test;
      const refusals = [
        await get(key, `/videos/${other.video.video_id}`),
        await get(key, `/images/${other.image.image_id}`),
        await post(key, `/videos/${other.video.video_id}/cancel`),
        await post(key, `/images/${other.image.image_id}/cancel`),
        await get(key, `/webhooks/${otherHook.webhook_id}/deliveries`),
        await post(key, `/webhooks/${otherHook.webhook_id}/test`),
        await del(key, `/webhooks/${otherHook.webhook_id}`),
      ];
      expect(refusals.map((reply) => [reply.status, reply.body.error?.code])).toEqual(Array(refusals.length).fill([404, 'not_found']));

      // Own data is there, and only own data.
      expect((await get(key, `/videos/${own.video.video_id}`)).status).toBe(200);
      const videos = (await get(key, '/videos')).body.data!;
      expect([videos.videos.map((v: Json) => v.video_id), videos.pagination.total]).toEqual([[own.video.video_id], 1]);
      const images = (await get(key, '/images')).body.data!;
      expect([images.images.map((i: Json) => i.image_id), images.pagination.total]).toEqual([[own.image.image_id], 1]);
      const webhooks = (await get(key, '/webhooks')).body.data!.webhooks;
      expect(webhooks.map((w: Json) => w.webhook_id)).toEqual([ownHook.webhook_id]);
      const transactions = await allTransactions(key);
      const taskIds = new Set(transactions.map((t) => t.task_id).filter(Boolean));
      expect(taskIds).toEqual(new Set([own.video.video_id, own.image.image_id]));
      expect(sum(transactions)).toBe((await get(key, '/credits')).body.data!.credits);
    }

    // Refusals changed nothing: the other mode's tasks are still processing, charged, unrefunded.
    expect((await get(test, `/videos/${mine.test.video.video_id}`)).body.data!.status).toBe('processing');
    expect((await get(live, `/videos/${mine.live.video.video_id}`)).body.data!.status).toBe('processing');
    expect((await get(live, '/credits')).body.data!.credits).toBe(500 - 15 - 5);
    expect((await get(test, '/credits')).body.data!.credits).toBe(1000 - 15 - 5);

    // Each mode cancels its own, refunded to its own balance.
    expect((await post(test, `/videos/${mine.test.video.video_id}/cancel`)).body.data).toMatchObject({ status: 'failed', livemode: false });
    expect((await get(test, '/credits')).body.data!.credits).toBe(1000 - 5);
    expect((await get(live, '/credits')).body.data!.credits).toBe(500 - 15 - 5);
  });

  it('uploads: a direct upload completes only in the mode that created it; both modes may upload', async () => {
    const { live, test } = await account();
    const png = readFileSync(path.join(SAMPLES_SOURCE_DIR, 'sample-image-1x1.png'));
    const direct = async (key: string) => {
      const created = await post(key, '/uploads');
      expect(created.status).toBe(200);
      const { upload_id: uploadId, upload_url: uploadUrl, fields } = created.body.data!;
      const form = new FormData();
      for (const [name, value] of Object.entries(fields as Record<string, string>)) form.append(name, value);
      form.append('file', new Blob([png]), 'upload.png');
      expect((await fetch(uploadUrl, { method: 'POST', body: form })).status).toBeLessThan(300);
      return uploadId as string;
    };
    for (const [owner, other] of [
      [live, test],
      [test, live],
    ] as const) {
      const uploadId = await direct(owner);
      const foreign = await post(other, `/uploads/${uploadId}/complete`);
      expect([foreign.status, foreign.body.error?.code]).toEqual([404, 'not_found']);
      const done = await post(owner, `/uploads/${uploadId}/complete`);
      expect(done.body.data).toMatchObject({ content_type: 'image/png', size: png.length });
      // Published once: the other mode still cannot complete it, nor see its answer.
      expect((await post(other, `/uploads/${uploadId}/complete`)).status).toBe(404);
    }
    const form = new FormData();
    form.append('image', new Blob([png], { type: 'image/png' }), 'cat.png');
    for (const key of [live, test]) {
      const reply = await call<Json>(stack.baseUrl, '/upload', { method: 'POST', key, body: form });
      expect(reply.body.data).toMatchObject({ content_type: 'image/png', size: png.length });
    }
  });

  it('keeps Idempotency-Keys apart: the same key in both modes starts two tasks, one per balance', async () => {
    const { live, test } = await account(500);
    const headers = { 'Idempotency-Key': 'same-key-both-modes' };
    const first = await post(live, '/generate', { prompt: 'a boat', duration: 3 }, headers);
    const second = await post(test, '/generate', { prompt: 'another boat', duration: 4 }, headers);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(first.body.data!.video_id).not.toBe(second.body.data!.video_id);
    expect((await get(live, '/credits')).body.data!.credits).toBe(485);
    expect((await get(test, '/credits')).body.data!.credits).toBe(980);
  });

  it('sends test-mode events with livemode false to test endpoints only', async () => {
    const { live, test } = await account(500);
    const receivers = { live: await startReceiver(), test: await startReceiver() };
    try {
      for (const [key, receiver] of [
        [live, receivers.live],
        [test, receivers.test],
      ] as const) {
        const created = (await post(key, '/webhooks', { url: receiver.url })).body.data!;
        receiver.useSecret(created.secret);
      }
      const liveVideo = (await post(live, '/generate', { prompt: 'a live fox', duration: 3 })).body.data!;
      const testVideo = (await post(test, '/generate', { prompt: 'a test fox', duration: 3 })).body.data!;
      await waitForFinal(stack, live, `/videos/${liveVideo.video_id}`);
      await waitForFinal(stack, test, `/videos/${testVideo.video_id}`);
      const [liveEvent] = await receivers.live.waitFor(1);
      const [testEvent] = await receivers.test.waitFor(1);
      expect(liveEvent?.verified).toMatchObject({ type: 'video.completed', livemode: true, data: { video_id: liveVideo.video_id, livemode: true } });
      expect(testEvent?.verified).toMatchObject({ type: 'video.completed', livemode: false, data: { video_id: testVideo.video_id, livemode: false } });
      const ping = await post(test, `/webhooks/${(await get(test, '/webhooks')).body.data!.webhooks[0].webhook_id}/test`);
      expect(ping.status).toBe(200);
      const events = await receivers.test.waitFor(2);
      expect(events[1]?.verified).toMatchObject({ type: 'webhook.test', livemode: false });
      // Nothing crossed over.
      expect(receivers.live.received.map((event) => event.verified?.data.video_id)).toEqual([liveVideo.video_id]);
    } finally {
      await receivers.live.close();
      await receivers.test.close();
    }
  });
});

describe('sim magic words in test mode', () => {
  it.each([
    ['sim:fail', 'upstream_error'],
    ['sim:content', 'content_rejected'],
  ])('%s fails the task (%s) and refunds it, as in live mode', async (word, code) => {
    const { live, test } = await account(500);
    const outcomes = [];
    for (const key of [live, test]) {
      const started = (await post(key, '/generate', { prompt: `${word} a fox`, duration: 3 })).body.data!;
      const final = (await waitForFinal<Json>(stack, key, `/videos/${started.video_id}`)).body.data!;
      const credits = (await get(key, '/credits')).body.data!.credits;
      const kinds = (await allTransactions(key)).filter((t) => t.task_id === started.video_id).map((t) => [t.type, t.amount]);
      outcomes.push({ status: final.status, code: final.error?.code, message: final.error?.message, kinds, livemode: final.livemode, credits });
    }
    expect(outcomes).toEqual([
      { status: 'failed', code, message: expect.any(String), kinds: [['refund', 15], ['charge', -15]], livemode: true, credits: 500 },
      { status: 'failed', code, message: outcomes[0]!.message, kinds: [['refund', 15], ['charge', -15]], livemode: false, credits: 1000 },
    ]);
  });

  it('sim:reject is the same 502 in test mode, refunded', async () => {
    const { live, test } = await account(500);
    const answers = [];
    for (const key of [live, test]) {
      const reply = await post(key, '/generate-image', { prompt: 'sim:reject a kite' });
      answers.push([reply.status, reply.body.error?.code, (await get(key, '/credits')).body.data!.credits]);
    }
    expect(answers).toEqual([
      [502, 'upstream_error', 500],
      [502, 'upstream_error', 1000],
    ]);
  });
});

describe('balances under concurrent starts of both modes on one account', () => {
  it('stay exact: per mode, ledger sum = balance = what the starts and refunds say', async () => {
    const { accountId, live, test } = await account(10_000);
    const prompts = Array.from({ length: 12 }, (_, i) => (i % 3 === 0 ? `sim:reject ${i}` : `fox ${i}`));
    const replies = await Promise.all(
      prompts.flatMap((prompt) => [live, test].map(async (key) => ({ key, reply: await post(key, '/generate', { prompt, duration: 3 }) }))),
    );
    const accepted = (key: string) => replies.filter((r) => r.key === key && r.reply.status === 200).length;
    expect(replies.map((r) => r.reply.status).sort()).toEqual([...Array(16).fill(200), ...Array(8).fill(502)]);
    for (const [key, scope, opening] of [
      [live, partitionOf(accountId, 'live'), 10_000],
      [test, partitionOf(accountId, 'test'), 1000],
    ] as const) {
      const credits = (await get(key, '/credits')).body.data!.credits;
      expect(credits).toBe(opening - 15 * accepted(key));
      const transactions = await allTransactions(key, 7);
      // Every entry listed once: positions 1..total with no gap and no repeat.
      expect(new Set(transactions.map((t) => t.transaction_id)).size).toBe(transactions.length);
      expect(transactions).toHaveLength(1 + 12 + 4);
      expect(sum(transactions)).toBe(credits);
      expect(ledgerSum(await stack.context.ledger.listForAccount(scope))).toBe(credits);
    }
  });
});

describe('GET /credits/transactions', () => {
  it('pages newest first with the history lists\' pagination; the amounts add up to the balance', async () => {
    const { account: created } = await createAccount(stack.context, { credits: 0, paidAccess: true, subscriptionStatus: 'active' });
    const key = (await createApiKey(stack.context, created.accountId, { rateLimit: 100_000, mode: 'test' })).apiKey;
    for (let i = 0; i < 6; i += 1) expect((await post(key, '/generate', { prompt: `sim:stall ${i}`, duration: 3 })).status).toBe(200);
    await grantCredits(stack.context, created.accountId, 7, 'support', { mode: 'test' });
    // 1 opening grant + 6 charges + 1 grant = 8 entries.
    const pages = [];
    for (const page of [1, 2, 3, 4]) pages.push((await get(key, `/credits/transactions?page=${page}&limit=3`)).body.data!);
    expect(pages.map((p) => p.pagination)).toEqual([
      { page: 1, limit: 3, total: 8, total_pages: 3, has_more: true },
      { page: 2, limit: 3, total: 8, total_pages: 3, has_more: true },
      { page: 3, limit: 3, total: 8, total_pages: 3, has_more: false },
      { page: 4, limit: 3, total: 8, total_pages: 3, has_more: false },
    ]);
    expect(pages.map((p) => p.transactions.length)).toEqual([3, 3, 2, 0]);
    const listed = pages.flatMap((p) => p.transactions);
    expect(listed[0]).toMatchObject({ type: 'grant', amount: 7, reason: 'support', task_id: null });
    expect(listed.at(-1)).toMatchObject({ type: 'grant', amount: 1000, reason: 'test mode opening balance' });
    expect(listed.slice(1, 7).every((t: Json) => t.type === 'charge' && t.amount === -15 && /^vid_/.test(t.task_id))).toBe(true);
    // Newest first is the order written; the opening grant is written during the first start,
    // a few milliseconds after that start took its timestamp, so it is left out of this check.
    const times = listed.slice(0, -1).map((t: Json) => t.created_at as string);
    expect(times).toEqual([...times].sort().reverse());
    expect(sum(listed)).toBe((await get(key, '/credits')).body.data!.credits);
    expect(sum(listed)).toBe(1000 - 90 + 7);
    // The live balance is untouched by the test grant and charges.
    const liveKey = (await createApiKey(stack.context, created.accountId)).apiKey;
    expect((await get(liveKey, '/credits')).body.data!.credits).toBe(0);
    expect((await get(liveKey, '/credits/transactions')).body.data!.pagination.total).toBe(0);

    for (const query of ['limit=51', 'limit=0', 'limit=abc', 'page=0', 'page=x']) {
      const reply = await get(key, `/credits/transactions?${query}`);
      expect([reply.status, reply.body.error?.code]).toEqual([400, 'validation_error']);
      // The message names the parameter at fault.
      expect(reply.body.error?.message).toMatch(new RegExp(`^${query.split('=')[0]}: `));
    }
  });

  it('is on the client, which knows its key\'s mode', async () => {
    const { live, test } = await account(500);
    const client = new VidgenClient({ apiKey: test, baseUrl: stack.baseUrl });
    expect([client.mode, new VidgenClient({ apiKey: live, baseUrl: stack.baseUrl }).mode]).toEqual(['test', 'live']);
    const page = await client.listTransactions({ limit: 5 });
    expect(page.transactions.map((t) => [t.type, t.amount])).toEqual([['grant', 1000]]);
    expect(page.pagination.total).toBe(1);
  });
});
