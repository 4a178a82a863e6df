import type { LocalStack } from '../../bin/local-stack/stack';
import { createAccount, createApiKey } from '../../functions/domain/account-admin';
import { call, startTestApi, waitForFinal } from '../support/local-api';
import { startFakeReplicate, type FakeReplicate } from '../support/fake-replicate';

/**
 * A deployment configured for Replicate (PROVIDER=replicate, against the fake Replicate): test
 * keys' tasks run on the simulated provider and never reach the upstream, not to submit, poll
 * or cancel. A live key's start does reach it (so the fake is really the configured provider).
 */
jest.setTimeout(90_000);

type Json = Record<string, any>;
let stack: LocalStack;
let fake: FakeReplicate;
const ENV = ['PROVIDER', 'REPLICATE_API_TOKEN', 'REPLICATE_BASE_URL', 'SIM_DELAY_SECONDS'] as const;
const saved = Object.fromEntries(ENV.map((name) => [name, process.env[name]]));

beforeAll(async () => {
  fake = await startFakeReplicate();
  stack = await startTestApi({
    PROVIDER: 'replicate',
    REPLICATE_API_TOKEN: fake.apiToken,
    REPLICATE_BASE_URL: fake.baseUrl,
    SIM_DELAY_SECONDS: '0',
  });
});
afterAll(async () => {
  await stack?.stop();
  await fake?.close();
  // Later files in this worker start their own stacks from the environment.
  for (const name of ENV) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

const get = (key: string, path: string) => call<Json>(stack.baseUrl, path, { key });
const post = (key: string, path: string, body?: unknown) =>
  call<Json>(stack.baseUrl, path, {
    method: 'POST',
    key,
    ...(body !== undefined && { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }),
  });

it('a test key never reaches the configured Replicate; a live key does', async () => {
  const { account } = await createAccount(stack.context, { credits: 500, paidAccess: true, subscriptionStatus: 'active' });
  const test = (await createApiKey(stack.context, account.accountId, { rateLimit: 1000, mode: 'test' })).apiKey;
  const live = (await createApiKey(stack.context, account.accountId, { rateLimit: 1000 })).apiKey;
  fake.requests.length = 0;

  const video = (await post(test, '/generate', { prompt: 'a red fox', duration: 3 })).body.data!;
  const image = (await post(test, '/generate-image', { prompt: 'a lighthouse' })).body.data!;
  const failing = (await post(test, '/generate', { prompt: 'sim:fail a fox', duration: 3 })).body.data!;
  const stalled = (await post(test, '/generate', { prompt: 'sim:stall a fox', duration: 3 })).body.data!;
  const rejected = await post(test, '/generate', { prompt: 'sim:reject a fox', duration: 3 });
  const finals = [
    (await waitForFinal<Json>(stack, test, `/videos/${video.video_id}`)).body.data!,
    (await waitForFinal<Json>(stack, test, `/images/${image.image_id}`)).body.data!,
    (await waitForFinal<Json>(stack, test, `/videos/${failing.video_id}`)).body.data!,
    (await post(test, `/videos/${stalled.video_id}/cancel`)).body.data!,
  ];
  expect(finals.map((task) => [task.status, task.error?.code ?? null, task.livemode])).toEqual([
    ['completed', null, false],
    ['completed', null, false],
    ['failed', 'upstream_error', false],
    ['failed', 'canceled', false],
  ]);
  expect([rejected.status, rejected.body.error?.code]).toEqual([502, 'upstream_error']);
  expect(finals[0]!.video_url).toMatch(/\/media\/videos\/vid_\w+\.mp4$/);
  // Charged 15 + 5, refunds for the failed, canceled and rejected ones.
  expect((await get(test, '/credits')).body.data!.credits).toBe(1000 - 15 - 5);
  expect(fake.requests).toHaveLength(0);
  console.log(`fake Replicate requests from the test key (video, image, sim:fail, cancel, sim:reject): ${fake.requests.length}`);

  const liveVideo = await post(live, '/generate', { prompt: 'a red fox', duration: 3 });
  expect([liveVideo.status, liveVideo.body.data!.livemode]).toEqual([200, true]);
  expect(fake.requests.filter((request) => request.method === 'POST').length).toBe(1);
  expect((await get(live, '/credits')).body.data!.credits).toBe(500 - 15);
});
