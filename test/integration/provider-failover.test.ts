import { buildAppContext, type AppContext } from '#app-context';
import { DynamoCircuitStore } from '#adapters/dynamodb/circuit-repository';
import type { Db } from '#adapters/dynamodb/dynamo-client';
import { loadConfig } from '#config';
import { createAccount } from '#domain/accounts/account-admin';
import { UpstreamError } from '#domain/shared/errors';
import { startTask, type StartRequest } from '#domain/tasks/start-task';
import { startFakeFal, type FakeFal } from '#test-support/fake-fal';
import { startFakeReplicate, type FakeReplicate } from '#test-support/fake-replicate';
import { createTestDb, dropTestDb } from '#test-support/test-db';

/**
 * Failover between two real adapters on DynamoDB Local: vid-1-5-pro routed to Replicate (the
 * fake on 127.0.0.1) then fal (the fake fal), each function instance a context of its own built
 * from the environment as a cold start does, sharing the circuits through the table.
 */
jest.setTimeout(60_000);

const REQUEST: StartRequest = {
  kind: 'video',
  params: { model: 'vid-1-5-pro', generationType: 'text_to_video', prompt: 'a heron', aspectRatio: '16:9', duration: 5, resolution: '480p' },
};
const THRESHOLD = 3;

let db: Db;
let replicate: FakeReplicate;
let fal: FakeFal;
const contexts: AppContext[] = [];

beforeAll(async () => {
  db = await createTestDb();
});
beforeEach(async () => {
  replicate = await startFakeReplicate();
  fal = await startFakeFal();
  // The circuits live in the shared table: each test starts with both closed.
  const circuits = new DynamoCircuitStore(db);
  await Promise.all([circuits.close('replicate'), circuits.close('fal')]);
});
afterEach(async () => {
  await replicate.close();
  await fal.close();
});
afterAll(async () => {
  if (db) await dropTestDb(db);
});

/** One function instance: its own clients and caches, the shared table. */
function instance(routes = '{"vid-1-5-pro":["replicate","fal"]}'): AppContext {
  const context = buildAppContext(
    loadConfig({
      TABLE_NAME: db.tableName,
      AWS_REGION: 'local',
      DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT!,
      S3_ENDPOINT: process.env.TEST_S3_ENDPOINT!,
      MEDIA_BUCKET: process.env.TEST_MEDIA_BUCKET ?? 'vidgen-test-media',
      PUBLIC_MEDIA_BASE_URL: 'http://127.0.0.1:1/media',
      PROVIDER: 'replicate',
      PROVIDER_ROUTES: routes,
      CIRCUIT_FAILURE_THRESHOLD: String(THRESHOLD),
      CIRCUIT_COOL_DOWN_SECONDS: '30',
      REPLICATE_BASE_URL: replicate.baseUrl,
      REPLICATE_API_TOKEN: replicate.apiToken,
      REPLICATE_TIMEOUT_MS: '1000',
      FAL_BASE_URL: fal.baseUrl,
      FAL_JWKS_URL: fal.jwksUrl,
      FAL_KEY: fal.apiKey,
      FAL_MODELS: JSON.stringify({ 'vid-1-5-pro': { endpoint: 'fal-ai/seedance/v1/lite/text-to-video', input: { prompt: '{{prompt}}' } } }),
    }),
  );
  contexts.push(context);
  return context;
}

async function account(context: AppContext, credits = 1_000): Promise<string> {
  // Paid: vid-2-0 needs a subscription.
  return (await createAccount(context, { credits, paidAccess: true, subscriptionStatus: 'active' })).account.accountId;
}

it('runs a start Replicate refuses with a 503 on fal: one charge, one job, fal recorded', async () => {
  const context = instance();
  const accountId = await account(context);
  replicate.behave({ kind: 'respond', status: 503 });
  const task = await startTask(context.lifecycle, accountId, REQUEST);
  expect(task.provider).toMatchObject({ name: 'fal' });
  expect([replicate.stats().creates, fal.stats().creates]).toEqual([0, 1]);
  expect((await context.accounts.get(accountId))?.credits).toBe(1_000 - 25);
  expect((await context.ledger.listForAccount(accountId)).map((entry) => entry.kind)).toEqual(['grant', 'charge']);
});

it('keeps a create that timed out after sending on Replicate: no failover, no refund yet', async () => {
  const context = instance();
  const accountId = await account(context);
  replicate.behave({ kind: 'answer-lost', delayMs: 1_500 });
  const task = await startTask(context.lifecycle, accountId, REQUEST);
  expect(task).toMatchObject({ status: 'processing' });
  expect(task.provider).toBeUndefined();
  expect(fal.stats().creates).toBe(0);
  expect((await context.ledger.listForAccount(accountId)).map((entry) => entry.kind)).toEqual(['grant', 'charge']);
});

it('answers 502 and refunds when both providers are down', async () => {
  const context = instance();
  const accountId = await account(context);
  replicate.behave({ kind: 'respond', status: 500 });
  fal.behave({ kind: 'respond', status: 503 });
  await expect(startTask(context.lifecycle, accountId, REQUEST)).rejects.toBeInstanceOf(UpstreamError);
  expect((await context.accounts.get(accountId))?.credits).toBe(1_000);
  expect((await context.ledger.listForAccount(accountId)).map((entry) => entry.kind)).toEqual(['grant', 'charge', 'refund']);
});

it('opens Replicate\'s circuit for every instance after N failures, probes once after the cool-down, and closes on its success', async () => {
  const [first, second, third] = [instance(), instance(), instance()];
  const accountId = await account(first);
  replicate.behave({ kind: 'respond', status: 503 }, THRESHOLD);
  for (let i = 0; i < THRESHOLD; i += 1) await startTask(first.lifecycle, accountId, REQUEST);
  const replicateCalls = () => replicate.requests.filter((request) => request.method === 'POST').length;
  expect(replicateCalls()).toBe(THRESHOLD);

  // Another instance skips Replicate: not one request reaches it during the cool-down.
  const skipped = await startTask(second.lifecycle, accountId, REQUEST);
  expect(skipped.provider?.name).toBe('fal');
  expect(replicateCalls()).toBe(THRESHOLD);

  // After the cool-down, two instances race: exactly one probe reaches Replicate (which is healthy again).
  const later = new Date(Date.now() + 31_000);
  const [a, b] = await Promise.all([
    startTask({ ...second.lifecycle, clock: () => later }, accountId, REQUEST),
    startTask({ ...third.lifecycle, clock: () => later }, accountId, REQUEST),
  ]);
  expect(replicateCalls()).toBe(THRESHOLD + 1);
  expect([a.provider?.name, b.provider?.name].sort()).toEqual(['fal', 'replicate']);

  // Closed: every instance sends to Replicate again.
  const closed = await startTask({ ...first.lifecycle, clock: () => later }, accountId, REQUEST);
  expect(closed.provider?.name).toBe('replicate');
});

describe('what Replicate answers decides the walk (issue 31)', () => {
  const VID_2_0: StartRequest = { ...REQUEST, params: { ...REQUEST.params, model: 'vid-2-0' } };

  it('fails over on a 422 that is not a content refusal (the issue\'s repro: vid-2-0 to replicate, then simulated)', async () => {
    const context = instance('{"vid-2-0":["replicate","simulated"]}');
    const accountId = await account(context);
    replicate.behave({ kind: 'respond', status: 422, body: { title: 'Input validation failed', detail: 'Input validation failed', status: 422 } });
    const task = await startTask(context.lifecycle, accountId, VID_2_0);
    expect(task.provider?.name).toBe('simulated');
    expect((await context.ledger.listForAccount(accountId)).map((entry) => entry.kind)).toEqual(['grant', 'charge']);
  });

  it('does not fail over a content refusal: 502 and one refund', async () => {
    const context = instance();
    const accountId = await account(context);
    replicate.behave({ kind: 'respond', status: 422, body: { detail: 'The input prompt was flagged as sensitive (E005)' } });
    await expect(startTask(context.lifecycle, accountId, REQUEST)).rejects.toBeInstanceOf(UpstreamError);
    expect(fal.stats().creates).toBe(0);
    expect((await context.ledger.listForAccount(accountId)).map((entry) => entry.kind)).toEqual(['grant', 'charge', 'refund']);
  });

  it('waits on the submission queue when Replicate alone throttles as it documents it (429, no Retry-After): no refund, no circuit failure', async () => {
    const context = instance('{"vid-1-5-pro":["replicate"]}');
    const accountId = await account(context);
    replicate.behave({ kind: 'rate-limit' }, THRESHOLD + 1);
    for (let i = 0; i < THRESHOLD + 1; i += 1) {
      const task = await startTask(context.lifecycle, accountId, REQUEST);
      expect(task).toMatchObject({ status: 'processing', queuedAt: expect.any(String) });
      expect(task.provider).toBeUndefined();
    }
    expect(replicate.stats().throttledCreates + replicate.requests.filter((request) => request.method === 'POST').length).toBeGreaterThan(0);
    expect((await context.ledger.listForAccount(accountId)).map((entry) => entry.kind)).toEqual(['grant', ...Array<string>(THRESHOLD + 1).fill('charge')]);
    expect(await new DynamoCircuitStore(db).read('replicate')).toEqual({ failures: 0 });
  });

  it.each([
    ['401 (a refused token)', 401],
    ['404 (a broken model map entry)', 404],
    ['422 (an input it does not take)', 422],
  ])('fails over on a %s without counting it against Replicate\'s circuit', async (_, status) => {
    const context = instance();
    const accountId = await account(context);
    replicate.behave({ kind: 'respond', status, body: { title: 'Refused', detail: 'Not found.', status } }, THRESHOLD + 1);
    for (let i = 0; i < THRESHOLD + 1; i += 1) expect((await startTask(context.lifecycle, accountId, REQUEST)).provider?.name).toBe('fal');
    // Every start asked Replicate: its circuit never opened, and holds no failure.
    expect(replicate.requests.filter((request) => request.method === 'POST')).toHaveLength(THRESHOLD + 1);
    expect(await new DynamoCircuitStore(db).read('replicate')).toEqual({ failures: 0 });
    expect((await startTask(context.lifecycle, accountId, REQUEST)).provider?.name).toBe('replicate');
  });

  it('does not count a 2xx without a prediction id (an answer) against the circuit', async () => {
    const context = instance();
    const accountId = await account(context);
    replicate.behave({ kind: 'respond', status: 201, body: { status: 'starting' } }, THRESHOLD + 1);
    for (let i = 0; i < THRESHOLD + 1; i += 1) await startTask(context.lifecycle, accountId, REQUEST);
    expect(await new DynamoCircuitStore(db).read('replicate')).toEqual({ failures: 0 });
  });
});

it('keeps a running task on fal when the routes change to Replicate alone', async () => {
  const before = instance();
  const accountId = await account(before);
  replicate.behave({ kind: 'respond', status: 503 });
  const task = await startTask(before.lifecycle, accountId, REQUEST);
  expect(task.provider?.name).toBe('fal');

  const after = instance('{"vid-1-5-pro":["replicate"]}');
  const readsBefore = replicate.stats().reads;
  const { refreshTask } = await import('#domain/tasks/lifecycle/outcomes');
  await refreshTask({ ...after.lifecycle, settings: { ...after.lifecycle.settings, checkIntervalMs: 0 } }, (await after.tasks.get(accountId, task.taskId))!);
  expect(fal.stats().statusReads).toBe(1);
  expect(replicate.stats().reads).toBe(readsBefore);
});
