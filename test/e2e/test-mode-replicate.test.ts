import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { LocalStack } from '#bin/local-stack/stack';
import { SAMPLES_SOURCE_DIR } from '#providers/simulated/sample-outputs';
import { createAccount, createApiKey } from '#domain/accounts/account-admin';
import { call, startTestApi, waitForFinal } from '#test-support/local-api';
import { startFakeReplicate, type FakeReplicate } from '#test-support/fake-replicate';

/**
 * A deployment configured for Replicate (PROVIDER=replicate, against the fake Replicate): test
 * keys' tasks run on the simulated provider and never reach the upstream, not to submit, poll
 * or cancel. A live key's start does reach it (so the fake is really the configured provider).
 * As deployed, the simulated provider hands out its sample outputs (SIM_OUTPUTS=samples).
 */
jest.setTimeout(90_000);

type Json = Record<string, any>;
let stack: LocalStack;
let fake: FakeReplicate;
const ENV = ['PROVIDER', 'REPLICATE_API_TOKEN', 'REPLICATE_BASE_URL', 'SIM_DELAY_SECONDS', 'SIM_OUTPUTS'] as const;
const saved = Object.fromEntries(ENV.map((name) => [name, process.env[name]]));

beforeAll(async () => {
  fake = await startFakeReplicate();
  stack = await startTestApi({
    PROVIDER: 'replicate',
    REPLICATE_API_TOKEN: fake.apiToken,
    REPLICATE_BASE_URL: fake.baseUrl,
    SIM_DELAY_SECONDS: '0',
    SIM_OUTPUTS: 'samples',
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
  // Served from our media like any result: the samples of the tasks' aspect ratio and format.
  const served = async (url: string) => Buffer.from(await (await fetch(url)).arrayBuffer());
  const sample = (name: string) => readFileSync(path.join(SAMPLES_SOURCE_DIR, name));
  expect([finals[0]!.aspect_ratio, finals[1]!.aspect_ratio, finals[1]!.output_format]).toEqual(['16:9', '1:1', 'png']);
  expect((await served(finals[0]!.video_url)).equals(sample('sample-video-16x9.mp4'))).toBe(true);
  expect((await served(finals[1]!.image_urls[0])).equals(sample('sample-image-1x1.png'))).toBe(true);
  // Charged 15 + 5, refunds for the failed, canceled and rejected ones.
  expect((await get(test, '/credits')).body.data!.credits).toBe(1000 - 15 - 5);
  expect(fake.requests).toHaveLength(0);
  console.log(`fake Replicate requests from the test key (video, image, sim:fail, cancel, sim:reject): ${fake.requests.length}`);

  const liveVideo = await post(live, '/generate', { prompt: 'a red fox', duration: 3 });
  expect([liveVideo.status, liveVideo.body.data!.livemode]).toEqual([200, true]);
  expect(fake.requests.filter((request) => request.method === 'POST').length).toBe(1);
  expect((await get(live, '/credits')).body.data!.credits).toBe(500 - 15);
});
