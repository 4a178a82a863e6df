/**
 * Latency and throughput of the API on the local stack, over real HTTP: the authorizer, the
 * rate limiter and the handlers against DynamoDB Local and s3rver, all on this machine.
 * Run: npm run bench:api   (figures only; no pass/fail)
 *
 * DynamoDB Local is far slower than DynamoDB, so read these as relative figures (what a change
 * costs), not as production latency.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startLocalStack } from '../bin/local-stack/stack';
import { freePort } from '../bin/local-stack/wait-for-port';
import { createAccount, createApiKey } from '../functions/domain/account-admin';

interface Figures {
  requests: number;
  seconds: number;
  statuses: Record<number, number>;
  latencies: number[];
}

async function load(count: number, concurrency: number, send: (i: number) => Promise<number>): Promise<Figures> {
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

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

function report(label: string, figures: Figures): void {
  const sorted = [...figures.latencies].sort((a, b) => a - b);
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  console.log(
    `${label.padEnd(34)} ${String(figures.requests).padStart(5)} req  ${(figures.requests / figures.seconds).toFixed(0).padStart(5)} req/s` +
      `  p50 ${ms(percentile(sorted, 50))}  p95 ${ms(percentile(sorted, 95))}  p99 ${ms(percentile(sorted, 99))}` +
      `  statuses ${JSON.stringify(figures.statuses)}`,
  );
}

async function main(): Promise<void> {
  process.env.SIM_DELAY_SECONDS = '3600'; // nothing renders during the run
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'vidgen-bench-'));
  const stack = await startLocalStack({
    host: '127.0.0.1',
    apiPort: await freePort(),
    dynamodbPort: await freePort(),
    s3Port: await freePort(),
    tableName: 'bench',
    mediaBucket: 'bench-media',
    region: 'local',
    dataDir,
    sweepIntervalSeconds: 3600,
  });
  try {
    const { account } = await createAccount(stack.context, { credits: 1_000_000 });
    const { apiKey } = await createApiKey(stack.context, account.accountId, { rateLimit: 1_000_000 });
    const headers = { Authorization: `Bearer ${apiKey}` };
    const get = (pathname: string) => async () => (await fetch(`${stack.baseUrl}${pathname}`, { headers })).status;

    await load(50, 5, get('/credits')); // warm-up: module loading, first connections
    report('GET /credits (c=1)', await load(300, 1, get('/credits')));
    report('GET /credits (c=20)', await load(1000, 20, get('/credits')));
    report(
      'POST /generate (c=10)',
      await load(300, 10, async () => {
        const response = await fetch(`${stack.baseUrl}/generate`, {
          method: 'POST',
          headers: { ...headers, 'Content-Type': 'application/json' },
          body: JSON.stringify({ prompt: 'bench', duration: 3 }),
        });
        return response.status;
      }),
    );
    // One key's whole default minute (60 requests) arriving at once: every start serialises on
    // the account's item, so this is the worst burst the default rate limit lets through.
    const { account: bursty } = await createAccount(stack.context, { credits: 1_000_000 });
    const { apiKey: burstKey } = await createApiKey(stack.context, bursty.accountId);
    report(
      'POST /generate burst of 60 (c=60)',
      await load(60, 60, async () => {
        const response = await fetch(`${stack.baseUrl}/generate`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${burstKey}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ prompt: 'burst', duration: 3 }),
        });
        return response.status;
      }),
    );
    report('GET /videos?limit=50 (c=10)', await load(300, 10, get('/videos?limit=50')));
    report('GET /videos?page=6&limit=50 (c=10)', await load(300, 10, get('/videos?page=6&limit=50')));
    const { heapUsed, rss } = process.memoryUsage();
    console.log(`memory: rss ${(rss / 2 ** 20).toFixed(0)} MiB, heap ${(heapUsed / 2 ** 20).toFixed(0)} MiB (API, in-process)`);
  } finally {
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
