import { buildAppContext, type AppContext } from '#app-context';
import type { Db } from '#adapters/dynamodb/dynamo-client';
import type { InProcessCopyQueue } from '#adapters/copy-queues';
import { loadConfig } from '#config';
import { createAccount } from '#domain/accounts/account-admin';
import { NotFoundError } from '#domain/shared/errors';
import { receiveProviderCallback } from '#domain/tasks/callbacks';
import { startTask, type StartRequest } from '#domain/tasks/start-task';
import { sweep } from '#domain/tasks/sweep';
import type { Task } from '#domain/tasks/task';
import { refreshTask } from '#domain/tasks/lifecycle/outcomes';
import { startCallbackReceiver } from '#test-support/callback-receiver';
import { startFakeReplicate, type FakeReplicate } from '#test-support/fake-replicate';
import { createTestDb, dropTestDb } from '#test-support/test-db';

/**
 * Switching the configured provider while tasks run (docs/decisions.md, "Tasks keep their
 * provider"): tasks started on Replicate (the fake on 127.0.0.1) finish there after PROVIDER
 * becomes "simulated", by polls and by callbacks, while new tasks go to the simulated provider.
 * Each context is built from environment variables through loadConfig, as a cold start does.
 * Every step prints one line (the closing note of issue 18 shows them).
 */
jest.setTimeout(60_000);

const REQUEST: StartRequest = {
  kind: 'video',
  params: { model: 'vid-1-5-pro', generationType: 'text_to_video', prompt: 'a heron', aspectRatio: '16:9', duration: 5, resolution: '480p' },
};

let db: Db;
let fake: FakeReplicate;
let receiver: Awaited<ReturnType<typeof startCallbackReceiver>>;
const contexts: AppContext[] = [];
const steps: string[] = [];
const step = (line: string) => steps.push(line);

beforeAll(async () => {
  db = await createTestDb();
  fake = await startFakeReplicate();
});
afterAll(async () => {
  console.log(['provider switch, step by step:', ...steps.map((line, index) => `  ${index + 1}. ${line}`)].join('\n'));
  for (const context of contexts) context.lifecycle.testProvider?.close?.();
  await receiver?.close();
  await fake?.close();
  if (db) await dropTestDb(db);
});

/** The environment of a function of this deployment; `provider` and Replicate's settings vary. */
function environment(provider: string, withReplicate: boolean): Record<string, string> {
  return {
    TABLE_NAME: db.tableName,
    AWS_REGION: 'local',
    DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT!,
    S3_ENDPOINT: process.env.TEST_S3_ENDPOINT!,
    MEDIA_BUCKET: process.env.TEST_MEDIA_BUCKET ?? 'vidgen-test-media',
    PUBLIC_MEDIA_BASE_URL: 'http://127.0.0.1:1/media',
    // The fake serves its outputs from 127.0.0.1, which the copy fetcher refuses unless told.
    OUTPUT_ALLOWED_ORIGINS: fake.baseUrl,
    SIM_DELAY_SECONDS: '0',
    SIM_OUTPUTS: 'samples',
    PROVIDER: provider,
    ...(withReplicate && {
      REPLICATE_BASE_URL: fake.baseUrl,
      REPLICATE_API_TOKEN: fake.apiToken,
      REPLICATE_WEBHOOK_SECRET: fake.webhookSecret,
      REPLICATE_TIMEOUT_MS: '5000',
    }),
  };
}

function deployment(provider: string, withReplicate = true): AppContext {
  const context = buildAppContext(loadConfig(environment(provider, withReplicate)));
  contexts.push(context);
  return context;
}

/** Asks the task's provider (every poll reaches it) and copies results, until the task is final. */
async function pollUntilFinal(context: AppContext, accountId: string, taskId: string): Promise<Task> {
  const deps = { ...context.lifecycle, settings: { ...context.lifecycle.settings, checkIntervalMs: 0 } };
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const task = (await context.tasks.get(accountId, taskId))!;
    if (task.status !== 'processing') return task;
    await refreshTask(deps, task);
    await (context.copyQueue as InProcessCopyQueue).drain();
  }
  throw new Error(`task ${taskId} did not end`);
}

it('finishes running tasks on the provider they started on, and sends new ones to the configured one', async () => {
  // 1. PROVIDER=replicate: two tasks start on Replicate.
  const before = deployment('replicate');
  const { account } = await createAccount(before, { credits: 1000, paidAccess: true, subscriptionStatus: 'active' });
  const accountId = account.accountId;
  const polled = await startTask(before.lifecycle, accountId, REQUEST);
  const calledBack = await startTask(before.lifecycle, accountId, REQUEST);
  expect([polled.provider?.name, calledBack.provider?.name]).toEqual(['replicate', 'replicate']);
  expect(fake.stats().creates).toBe(2);
  step(`PROVIDER=replicate: started ${polled.taskId} and ${calledBack.taskId} on replicate (jobs ${polled.provider!.jobId}, ${calledBack.provider!.jobId}; creates at the fake: 2)`);

  // 2. The deployment switches to the simulated provider; Replicate's settings stay.
  const after = deployment('simulated');
  expect(after.config.provider.name).toBe('simulated');
  expect(after.config.otherProviders?.map((other) => other.name)).toEqual(['replicate']);
  step('switched: PROVIDER=simulated, Replicate still configured (its token and URL kept) for the tasks that run there');

  // 3. A poll of an old task goes to Replicate, which finishes it.
  const readsBefore = fake.stats().reads;
  const done = await pollUntilFinal(after, accountId, polled.taskId);
  expect(done).toMatchObject({ status: 'completed', provider: { name: 'replicate' } });
  expect(fake.stats().reads).toBeGreaterThan(readsBefore);
  step(`poll after the switch: ${polled.taskId} asked replicate ${fake.stats().reads - readsBefore} times -> ${done.status} (${done.outputUrls?.[0]})`);

  // 4. A callback for the other old task (signed by Replicate) is read with Replicate's secret and applied.
  const jobId = calledBack.provider!.jobId;
  fake.setPredictionStatus(jobId, 'succeeded', `${fake.baseUrl}/files/${jobId}.mp4`);
  receiver = await startCallbackReceiver({
    answer: async ({ path, request }) => {
      const [provider, account_, taskId] = path.split('/').slice(-3);
      try {
        await receiveProviderCallback({ ...after.lifecycle, callbackReceipts: after.callbackReceipts }, { provider: provider!, accountId: account_!, taskId: taskId! }, request);
        return 200;
      } catch (error) {
        if (error instanceof NotFoundError) return 404;
        throw error;
      }
    },
  });
  const status = await fake.sendCallback(jobId, { url: `${receiver.origin}/api/v1/provider-callbacks/replicate/${accountId}/${calledBack.taskId}` });
  expect(status).toBe(200);
  await (after.copyQueue as InProcessCopyQueue).drain();
  const finished = (await after.tasks.get(accountId, calledBack.taskId))!;
  expect(finished).toMatchObject({ status: 'completed', provider: { name: 'replicate' } });
  step(`callback after the switch: replicate's signed callback for ${calledBack.taskId} answered ${status} -> ${finished.status}`);

  // 5. A new task goes to the simulated provider; Replicate sees no create.
  const fresh = await startTask(after.lifecycle, accountId, REQUEST);
  expect(fresh.provider?.name).toBe('simulated');
  const freshDone = await pollUntilFinal(after, accountId, fresh.taskId);
  expect(freshDone.status).toBe('completed');
  expect(fake.stats().creates).toBe(2);
  step(`new task after the switch: ${fresh.taskId} started on ${fresh.provider!.name} -> ${freshDone.status}; creates at the fake still 2`);
});

it('leaves a task whose provider is no longer configured for the sweeper, which times it out and refunds it', async () => {
  const before = deployment('replicate');
  const { account } = await createAccount(before, { credits: 1000, paidAccess: true, subscriptionStatus: 'active' });
  const stranded = await startTask(before.lifecycle, account.accountId, REQUEST);
  // Replicate's settings removed altogether: nothing can ask about the job any more.
  const after = deployment('simulated', false);
  expect(after.config.otherProviders).toBeUndefined();
  const readsBefore = fake.stats().reads;
  const deps = { ...after.lifecycle, settings: { ...after.lifecycle.settings, checkIntervalMs: 0 } };
  const polled = await refreshTask(deps, (await after.tasks.get(account.accountId, stranded.taskId))!);
  expect(polled.status).toBe('processing');
  expect(fake.stats().reads).toBe(readsBefore);
  step(`PROVIDER=simulated without Replicate's settings: a poll of ${stranded.taskId} (replicate) reaches no provider; it stays ${polled.status}`);

  const later = new Date(Date.now() + after.lifecycle.settings.taskTimeoutMs + 60_000);
  await sweep({ ...after.lifecycle, clock: () => later });
  const ended = (await after.tasks.get(account.accountId, stranded.taskId))!;
  expect(ended).toMatchObject({ status: 'failed', error: { code: 'timeout' } });
  const balance = (await after.accounts.get(account.accountId))?.credits;
  expect(balance).toBe(1000);
  step(`the sweeper after the timeout: ${stranded.taskId} ${ended.status} (${ended.error!.code}), refunded (balance ${balance})`);
});
