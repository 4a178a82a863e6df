import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { CreateBucketCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { createS3Client } from '#adapters/s3/s3-client';
import { recordContract } from './contract';
import os from 'node:os';
import path from 'node:path';
import { startLocalStack, type LocalStack } from '#bin/local-stack/stack';
import { InProcessCopyQueue } from '#adapters/copy-queues';
import { ledgerSum } from '#domain/accounts/ledger';
import { uniqueTableName, testDynamoEndpoint } from './test-db';

/**
 * The local stack of `npm start`, in this test process, on a fresh table and a free port,
 * using the DynamoDB Local and s3rver of the global setup. Requests go over real HTTP. The console
 * at /console/ only when asked (building it is the console tests' business).
 */
export async function startTestApi(env: Record<string, string> = {}, options: { console?: boolean } = {}): Promise<LocalStack> {
  Object.assign(process.env, env);
  // A bucket of its own, so a test can count what was (not) written.
  const mediaBucket = `e2e-${randomUUID().slice(0, 8)}`;
  const s3 = createS3Client({ region: 'local', endpoint: process.env.TEST_S3_ENDPOINT! });
  await s3.send(new CreateBucketCommand({ Bucket: mediaBucket }));
  s3.destroy();
  return startLocalStack(
    {
      host: '127.0.0.1',
      apiPort: 0,
      dynamodbPort: 0,
      s3Port: 0,
      tableName: uniqueTableName('e2e'),
      mediaBucket,
      region: 'local',
      dataDir: mkdtempSync(path.join(os.tmpdir(), 'vidgen-e2e-')),
      // Off unless a test asks for it (the retention e2e runs it every second).
      sweepIntervalSeconds: Number(env.SWEEP_INTERVAL_SECONDS ?? 3600),
      ...(env.API_BASE_URL && { apiBaseUrl: env.API_BASE_URL }),
    },
    { dynamodbEndpoint: testDynamoEndpoint(), s3Endpoint: process.env.TEST_S3_ENDPOINT, withoutConsole: !options.console },
  );
}

export interface ApiReply<T = unknown> {
  status: number;
  headers: Headers;
  body: { data: T | null; error: { message: string; code: string } | null };
}

export async function call<T = unknown>(
  baseUrl: string,
  pathname: string,
  init: RequestInit & { key?: string } = {},
): Promise<ApiReply<T>> {
  const { key, headers, ...rest } = init;
  const response = await fetch(`${baseUrl}${pathname}`, {
    ...rest,
    headers: { ...(key && { Authorization: `Bearer ${key}` }), ...(headers as Record<string, string>) },
  });
  const body = (await response.json()) as ApiReply<T>['body'];
  // Every answer the end-to-end suite receives must be one the OpenAPI document describes.
  recordContract(rest.method ?? 'GET', `${new URL(baseUrl).pathname}${pathname}`, response.status, response.headers, body);
  return { status: response.status, headers: response.headers, body };
}

/** An answer's JSON as the end-to-end tests read it. */
export type Json = Record<string, any>;

/** POST with a key: `body` as JSON (a string as it is), no body when undefined; `headers` win. */
export const post = <T = Json>(stack: LocalStack, key: string, pathname: string, body?: unknown, headers: Record<string, string> = {}) =>
  call<T>(stack.baseUrl, pathname, {
    method: 'POST',
    key,
    headers: { ...(body !== undefined && { 'Content-Type': 'application/json' }), ...headers },
    ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });

/** GET with a key. */
export const get = <T = Json>(stack: LocalStack, key: string, pathname: string) => call<T>(stack.baseUrl, pathname, { key });

/** DELETE with a key. */
export const del = <T = Json>(stack: LocalStack, key: string, pathname: string) => call<T>(stack.baseUrl, pathname, { method: 'DELETE', key });

/** Waits until at least `seconds` remain in the current minute, so a burst stays in one rate window. */
export async function awaitRoomInWindow(seconds: number): Promise<void> {
  const intoMinute = (Date.now() / 1000) % 60;
  if (60 - intoMinute < seconds) await new Promise((resolve) => setTimeout(resolve, (60 - intoMinute + 0.05) * 1000));
}

/** Polls a task until it is final, letting in-process copies finish between polls. */
export async function waitForFinal<T extends { status?: string }>(
  stack: LocalStack,
  key: string,
  path: string,
  timeoutMs = 45_000,
): Promise<ApiReply<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reply = await call<T>(stack.baseUrl, path, { key });
    if (reply.body.data?.status !== 'processing' || Date.now() > deadline) return reply;
    await (stack.context.copyQueue as InProcessCopyQueue).drain();
    await new Promise((resolve) => setTimeout(resolve, 2_100));
  }
}

/** An account's balance and the sum of its ledger, which must always agree. */
export async function balanceAndLedger(stack: LocalStack, accountId: string) {
  const [account, entries] = await Promise.all([
    stack.context.accounts.get(accountId),
    stack.context.ledger.listForAccount(accountId),
  ]);
  return { balance: account!.credits, ledger: ledgerSum(entries) };
}

/** Keys in the stack's bucket under a prefix (one page is plenty for tests). */
export async function listKeys(stack: LocalStack, prefix: string): Promise<string[]> {
  const s3 = createS3Client({ region: 'local', endpoint: stack.s3Endpoint });
  try {
    const { Contents } = await s3.send(
      new ListObjectsV2Command({ Bucket: stack.context.storage.bucket, Prefix: prefix }),
    );
    return (Contents ?? []).map((object) => object.Key!);
  } finally {
    s3.destroy();
  }
}
