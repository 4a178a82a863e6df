import { lambdaContext } from '#bin/lambda-context.cjs';
import { buildAppContext } from '#app-context';
import type { Db } from '#adapters/dynamodb/dynamo-client';
import { createAccount } from '#domain/accounts/account-admin';
import { startTask } from '#domain/tasks/start-task';
import { ScriptedProvider } from '#test-support/scripted-provider';
import { createTestDb, dropTestDb, testConfig } from '#test-support/test-db';

/**
 * The sweeper handler as Lambda runs it (its configuration from the environment, JSON logs and
 * EMF metrics on stdout), against DynamoDB Local: a run that changes nothing counts the tasks
 * it examined and logs nothing; a run that times a task out says so, with the task's lines.
 */
let db: Db;

beforeAll(async () => {
  db = await createTestDb();
  delete process.env.LOG_FORMAT;
  Object.assign(process.env, {
    TABLE_NAME: db.tableName,
    AWS_REGION: 'local',
    DYNAMODB_ENDPOINT: process.env.TEST_DYNAMODB_ENDPOINT,
    S3_ENDPOINT: process.env.TEST_S3_ENDPOINT,
    MEDIA_BUCKET: process.env.TEST_MEDIA_BUCKET ?? 'vidgen-test-media',
    PUBLIC_MEDIA_BASE_URL: 'http://127.0.0.1:1/media',
    PROVIDER: 'simulated',
    SIM_DELAY_SECONDS: '3600',
  });
});
afterAll(async () => {
  if (db) await dropTestDb(db);
});

async function stdoutOf(fn: () => Promise<unknown>): Promise<Array<Record<string, any>>> {
  const lines: string[] = [];
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    return true;
  });
  try {
    await fn();
  } finally {
    spy.mockRestore();
  }
  return lines.map((line) => JSON.parse(line));
}

it('logs changes, not heartbeats, and counts what it examined on every run', async () => {
  const { handler } = await import('#handlers/sweeper');
  // Tasks started through the use case, by a provider that keeps them processing.
  const context = buildAppContext(testConfig(db.tableName), { provider: new ScriptedProvider() });
  const { account } = await createAccount(context, { credits: 100, paidAccess: true, subscriptionStatus: 'active' });
  const request = {
    kind: 'video' as const,
    params: {
      model: 'vid-2-0' as const,
      generationType: 'text_to_video' as const,
      prompt: 'a cat',
      aspectRatio: '16:9' as const,
      duration: 5,
      resolution: '720p' as const,
    },
  };
  await startTask(context.lifecycle, account.accountId, request);

  const idle = await stdoutOf(() => handler({}, lambdaContext('sweeper', { requestId: 'sweep-1' })));
  expect(idle.filter((line) => line.message !== undefined)).toEqual([]);
  const counted = idle.find((line) => 'SweeperTasksExamined' in line);
  expect(counted).toMatchObject({ SweeperTasksExamined: 1, service: 'vidgen-local' });
  expect(counted!._aws.CloudWatchMetrics[0]).toMatchObject({ Namespace: 'VidGen', Dimensions: [['service']] });

  // A task started two hours ago is past the 30 minute timeout.
  const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
  const old = await startTask({ ...context.lifecycle, clock: () => twoHoursAgo }, account.accountId, request);
  const busy = await stdoutOf(() => handler({}, lambdaContext('sweeper', { requestId: 'sweep-2' })));
  const logs = busy.filter((line) => line.message !== undefined);
  expect(logs.map((line) => [line.level, line.message])).toEqual([
    ['INFO', 'task failed and refunded'],
    ['INFO', 'sweep'],
  ]);
  expect(logs[0]).toMatchObject({
    task_id: old.taskId,
    account_id: account.accountId,
    model: 'vid-2-0',
    code: 'timeout',
    function_name: 'sweeper',
    function_request_id: 'sweep-2',
    cold_start: false,
  });
  expect(logs[1]).toMatchObject({ examined: 2, timedOut: 1, errors: 0 });
  const metrics = Object.assign({}, ...busy.filter((line) => line._aws && line.model === undefined));
  expect(metrics).toMatchObject({ SweeperTasksExamined: 2, TaskFailed: 1, TaskRefunded: 1 });
  const perModel = busy.filter((line) => line._aws && line.model === 'vid-2-0');
  expect(perModel.map((line) => Object.keys(line).filter((key) => key.startsWith('Task')))).toEqual([
    ['TaskFailed'],
    ['TaskRefunded'],
  ]);
});
