/**
 * What the HTTP benches (api-latency, scale) share: the local stack they run against, accounts
 * with keys the rate limit leaves alone, and a closed-loop load generator with its figures.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startLocalStack, type LocalStack } from '#bin/local-stack/stack';
import { freePort } from '#bin/local-stack/wait-for-port';
import { createAccount, createApiKey } from '#domain/accounts/account-admin';
import { ServiceBusyError } from '#domain/shared/errors';

export interface Figures {
  requests: number;
  seconds: number;
  statuses: Record<number, number>;
  latencies: number[];
}

/** `count` calls of `send` (which answers an HTTP status), `concurrency` at a time. */
export async function load(count: number, concurrency: number, send: (i: number) => Promise<number>): Promise<Figures> {
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const began = performance.now();
        const status = await send(i);
        latencies.push(performance.now() - began);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  return { requests: count, seconds: (performance.now() - start) / 1000, statuses, latencies };
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

export const ms = (value: number) => `${value.toFixed(1)} ms`;

/**
 * The local stack on free loopback ports, in a fresh data folder. Simulated tasks stay
 * processing (nothing renders during a run, unless `settings` say otherwise) and the sweeper
 * does not run on its own.
 */
export async function startBenchStack(name: string, settings: Record<string, string> = {}): Promise<LocalStack> {
  process.env.SIM_DELAY_SECONDS = '3600';
  // A bench that times the simulated provider itself (estimate.ts) sets its own delay.
  Object.assign(process.env, settings);
  return startLocalStack({
    host: '127.0.0.1',
    apiPort: await freePort(),
    dynamodbPort: await freePort(),
    s3Port: await freePort(),
    tableName: 'bench',
    mediaBucket: 'bench-media',
    region: 'local',
    dataDir: mkdtempSync(path.join(os.tmpdir(), `${name}-`)),
    sweepIntervalSeconds: 3600,
  });
}

/** A new account with `credits` and an API key; `rateLimit` per minute, the default when not given. */
export async function newApiKey(
  stack: LocalStack,
  credits: number,
  rateLimit?: number,
  monthlySpendLimit?: number,
): Promise<{ accountId: string; apiKey: string }> {
  const { account } = await createAccount(stack.context, { credits });
  const { apiKey } = await createApiKey(stack.context, account.accountId, {
    ...(rateLimit !== undefined && { rateLimit }),
    ...(monthlySpendLimit !== undefined && { monthlySpendLimit }),
  });
  return { accountId: account.accountId, apiKey };
}

/** Runs a bench's `main`, ending the process with status 1 when it throws. */
/** DynamoDB Local on a loaded machine can take longer than the client's timeout: try again (for idempotent writes, such as a seed's Puts). */
export async function patiently<T>(send: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await send();
    } catch (error) {
      if (attempt >= 6 || !(error instanceof ServiceBusyError)) throw error;
    }
  }
}

export function runBench(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
